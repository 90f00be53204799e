import { useState } from 'preact/hooks';
import { adminApi, type Me } from '../admin-api.js';
import { replaceAddress } from '../router.js';
import { ErrorMessage, Field, Page, useAction } from '../ui.js';

/** Where the setup link points: `/setup#token=…`. */
export const SETUP_PATH = '/setup';

/** The server's rule, repeated only to say it before the first attempt (the server enforces it). */
const MIN_PASSWORD_LENGTH = 12;

const tokenOfLink = (): string => new URLSearchParams(location.hash.slice(1)).get('token') ?? '';

/**
 * First sign-in: the one-time setup link printed by `results-api admins create` lets the new
 * admin choose a password; the console then signs them in with it.
 */
export function SetupPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [token] = useState(tokenOfLink);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const { act, busy, error, setError } = useAction(async () => {
    if (password !== repeat) {
      setError(new Error('The two passwords differ: type the same password twice.'));
      return;
    }
    const admin = await adminApi.setup({ token, password });
    const me = await adminApi.signIn({ email: admin.email, password });
    // The used token leaves the address bar and the history.
    replaceAddress('/#/');
    onSignedIn(me);
  });
  if (!token) {
    return (
      <Page title="Set up your account">
        <ErrorMessage error="This setup link has no token. Open the whole link you were sent, or ask an operator for a new one." />
      </Page>
    );
  }
  return (
    <Page title="Set up your account">
      <p>Choose the password you will sign in with. The link works once.</p>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void act();
        }}
      >
        <Field
          label="New password"
          type="password"
          name="new-password"
          autocomplete="new-password"
          minLength={MIN_PASSWORD_LENGTH}
          required
          hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <Field
          label="Repeat the password"
          type="password"
          name="repeat-password"
          autocomplete="new-password"
          required
          value={repeat}
          onInput={(e) => setRepeat(e.currentTarget.value)}
        />
        <ErrorMessage error={error} />
        <div>
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Set password and sign in'}
          </button>
        </div>
      </form>
    </Page>
  );
}
