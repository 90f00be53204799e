import { useState } from 'preact/hooks';
import { adminApi } from '../admin-api.js';
import { useSignedIn } from '../session.js';
import { CopyField, ErrorMessage, Field, Notice, Page, useAction } from '../ui.js';

/** The signed-in admin's own account: turning on the TOTP second factor. */
export function AccountPage() {
  const { email } = useSignedIn();
  const [enrolment, setEnrolment] = useState<{ secret: string; uri: string } | undefined>(undefined);
  const [code, setCode] = useState('');
  const [enabled, setEnabled] = useState(false);
  const start = useAction(async () => setEnrolment(await adminApi.startTotp()));
  const confirm = useAction(async () => {
    await adminApi.confirmTotp(code);
    setEnabled(true);
    setEnrolment(undefined);
  });
  return (
    <Page title="Your account">
      <p>Signed in as {email}.</p>
      <h2>Two-factor sign-in (TOTP)</h2>
      {enabled ? <Notice>Two-factor sign-in is on: from now on, sign-in asks for the code of your authenticator app.</Notice> : null}
      {!enrolment && !enabled ? (
        <p>
          <button type="button" disabled={start.busy} onClick={() => void start.act()}>
            Set up an authenticator app
          </button>
        </p>
      ) : null}
      <ErrorMessage error={start.error} />
      {enrolment ? (
        <>
          <p>Add this account to your authenticator app with the secret (or the otpauth link), then enter the code it shows.</p>
          <CopyField label="Secret" value={enrolment.secret} />
          <CopyField label="otpauth link" value={enrolment.uri} />
          <form
            class="inline"
            onSubmit={(event) => {
              event.preventDefault();
              void confirm.act();
            }}
          >
            <Field
              label="Code from the app"
              name="totp-code"
              inputMode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9]{6}"
              required
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
            <button type="submit" disabled={confirm.busy}>
              Turn on two-factor sign-in
            </button>
          </form>
          <ErrorMessage error={confirm.error} />
        </>
      ) : null}
    </Page>
  );
}
