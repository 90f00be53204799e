import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, SESSION_EXPIRED, setCsrfToken } from './api.js';
import { adminApi, type Me } from './admin-api.js';
import { href, useRoute, type Route } from './router.js';
import { roleName } from './roles.js';
import { SessionContext, type SignedIn } from './session.js';
import { ErrorMessage, Page, useAction } from './ui.js';
import { SignInPage } from './pages/sign-in.js';
import { SETUP_PATH, SetupPage } from './pages/setup.js';
import { pageFor, NAVIGATION } from './pages/index.js';

type SessionState = { kind: 'checking' } | { kind: 'signed-out' } | { kind: 'signed-in'; me: Me } | { kind: 'unreachable'; error: unknown };

/** Who is signed in: asked when the console opens, adopted on sign-in, dropped on sign-out or any later 401. */
function useAdminSession() {
  const [session, setSession] = useState<SessionState>({ kind: 'checking' });

  const adopt = useCallback((me: Me) => {
    setCsrfToken(me.csrfToken ?? undefined);
    setSession({ kind: 'signed-in', me });
  }, []);

  const check = useCallback(() => {
    adminApi.me().then(adopt, (error: unknown) => {
      if (error instanceof ApiError && error.status === 401) setSession({ kind: 'signed-out' });
      else setSession({ kind: 'unreachable', error });
    });
  }, [adopt]);

  // The setup page needs no session (and has none yet).
  useEffect(() => {
    if (location.pathname !== SETUP_PATH) check();
  }, [check]);

  // Any 401 later (the session expired, or was signed out elsewhere) returns to the sign-in form.
  useEffect(() => {
    const onExpired = () => setSession({ kind: 'signed-out' });
    addEventListener(SESSION_EXPIRED, onExpired);
    return () => removeEventListener(SESSION_EXPIRED, onExpired);
  }, []);

  const signOut = async () => {
    try {
      await adminApi.signOut();
    } catch (error) {
      // Already signed out (401) is what was asked; any other refusal leaves the session alive: say so.
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
    setCsrfToken(undefined);
    setSession({ kind: 'signed-out' });
    location.hash = '#/';
  };

  return { session, adopt, check, signOut };
}

/** The console: who is signed in decides between the sign-in pages and the shell. */
export function App() {
  const route = useRoute();
  const { session, adopt, check, signOut } = useAdminSession();

  // The setup link `results-api admins create` prints: /setup#token=… (the token never reaches a server log).
  if (location.pathname === SETUP_PATH) {
    return (
      <Frame>
        <SetupPage onSignedIn={adopt} />
      </Frame>
    );
  }
  switch (session.kind) {
    case 'checking':
      return (
        <Frame>
          <p class="loading">Loading…</p>
        </Frame>
      );
    case 'unreachable':
      return (
        <Frame>
          <Page title="Admin console unavailable">
            <ErrorMessage error={session.error} />
            <button type="button" onClick={check}>
              Try again
            </button>
          </Page>
        </Frame>
      );
    case 'signed-out':
      return (
        <Frame>
          <SignInPage onSignedIn={adopt} />
        </Frame>
      );
    case 'signed-in': {
      const signedIn: SignedIn = { email: session.me.admin.email, role: session.me.admin.role, workspaces: session.me.workspaces, signOut };
      return (
        <SessionContext.Provider value={signedIn}>
          <Shell route={route} signedIn={signedIn} />
        </SessionContext.Provider>
      );
    }
  }
}

/** The page frame before sign-in: the product's name and one main region. */
function Frame({ children }: { children: ComponentChildren }) {
  return (
    <>
      <header class="top-bar">
        <span class="brand">results-api admin</span>
      </header>
      <main id="main" class="narrow">
        {children}
      </main>
    </>
  );
}

/** Skip link, header with the signed-in admin, navigation for their role, and the page. */
function Shell({ route, signedIn }: { route: Route; signedIn: SignedIn }) {
  const section = route.segments[0] ?? '';
  const signOut = useAction(() => signedIn.signOut());
  const items = NAVIGATION.filter((item) => item.roles.includes(signedIn.role));
  return (
    <>
      <a class="skip-link" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header class="top-bar">
        <span class="brand">results-api admin</span>
        <span class="who">
          <span>
            {signedIn.email} <span class="role">({roleName(signedIn.role)})</span>
          </span>
          <button type="button" disabled={signOut.busy} onClick={() => void signOut.act()}>
            Sign out
          </button>
        </span>
      </header>
      {signOut.error ? (
        <div class="banner">
          <ErrorMessage error={new Error(`You are still signed in: ${(signOut.error as Error).message}`)} />
        </div>
      ) : null}
      <div class="layout">
        <nav aria-label="Console" class="side-nav">
          <ul>
            {items.map((item) => (
              <li key={item.path}>
                <a href={href(`/${item.path}`)} aria-current={item.path === section ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {pageFor(route, signedIn.role, items[0]?.path)}
        </main>
      </div>
    </>
  );
}

/** The skip link must not change the hash (that is the router's); it moves the focus instead. */
function skipToMain(event: MouseEvent): void {
  event.preventDefault();
  document.getElementById('main')?.focus();
}
