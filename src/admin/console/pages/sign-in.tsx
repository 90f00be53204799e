import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { adminApi, type Me } from '../admin-api.js';
import { ErrorMessage, Field, Page, useAction } from '../ui.js';

/** Email and password, then the TOTP code when the account has a second factor. */
export function SignInPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const { act, busy, error, setError } = useAction(async () => {
    try {
      onSignedIn(await adminApi.signIn({ email, password, ...(needsCode ? { totpCode: totp } : {}) }));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'totp-required') {
        setNeedsCode(true);
        setError(undefined);
        return;
      }
      throw err;
    }
  });
  return (
    <Page title="Sign in">
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void act();
        }}
      >
        <Field label="Email" type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <Field
          label="Password"
          type="password"
          name="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        {needsCode ? (
          <Field
            label="Authentication code"
            hint="The six digits your authenticator app shows for results-api."
            name="totp"
            inputMode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9]{6}"
            required
            autoFocus
            value={totp}
            onInput={(e) => setTotp(e.currentTarget.value)}
          />
        ) : null}
        <ErrorMessage error={error} />
        <div>
          <button type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
    </Page>
  );
}
