/**
 * Redirect URIs (RFC 6749 §3.1.2, RFC 8252, OAuth 2.1 §2.3): what an app may register, and
 * whether a requested one matches. Matching is exact, character for character, except that a
 * loopback redirect may name any port (RFC 8252 §7.3: a native app listens on whatever port
 * the system gives it).
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const MAX_REDIRECT_URI_LENGTH = 2000;

const parse = (uri: string): URL | null => {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
};

const isLoopback = (url: URL): boolean => url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);

/** A private-use scheme of a native app (RFC 8252 §7.1): a reversed domain name such as com.example.app. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

/**
 * Why a redirect URI may not be registered, or null. `kinds` narrows what is accepted: dynamic
 * registration and client ID metadata documents accept only https and loopback redirects.
 */
export function redirectUriProblem(uri: string, kinds: 'any' | 'https-or-loopback' = 'any'): string | null {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `a redirect URI is at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  const url = parse(uri);
  if (!url) return `"${uri.slice(0, 100)}" is not an absolute URI`;
  if (url.hash !== '' || uri.includes('#')) return `"${uri.slice(0, 100)}" has a fragment, which a redirect URI must not have (RFC 6749 §3.1.2)`;
  if (url.username !== '' || url.password !== '') return `"${uri.slice(0, 100)}" carries credentials`;
  if (url.protocol === 'https:') return null;
  if (isLoopback(url)) return null;
  if (kinds === 'any' && PRIVATE_USE_SCHEME.test(url.protocol)) return null;
  return kinds === 'any'
    ? `"${uri.slice(0, 100)}" must be https, http on a loopback address (127.0.0.1, [::1], localhost) or a private-use scheme such as com.example.app:/callback`
    : `"${uri.slice(0, 100)}" must be https or http on a loopback address (127.0.0.1, [::1], localhost)`;
}

/** A loopback redirect URI without its port, exactly as written otherwise; null for any other URI. */
const LOOPBACK_WITHOUT_PORT = /^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::\d{1,5})?([/?].*)?$/;
const withoutPort = (uri: string): string | null => {
  const match = LOOPBACK_WITHOUT_PORT.exec(uri);
  return match ? `${match[1]}${match[2] ?? ''}` : null;
};

/** The requested redirect URI if it matches a registered one (exactly, or a loopback one but for the port), else null. */
export function matchRedirectUri(requested: string, registered: readonly string[]): string | null {
  if (registered.includes(requested)) return requested;
  const portless = withoutPort(requested);
  if (portless === null) return null;
  return registered.some((candidate) => withoutPort(candidate) === portless) ? requested : null;
}

/**
 * Whether only the app can receive what is sent to this redirect URI: an https host it holds.
 * Any program on the user's device may listen on a loopback port or claim a private-use
 * scheme, and so pose as the app (RFC 8252 §8.6).
 */
export function redirectReachesOnlyTheApp(uri: string): boolean {
  const url = parse(uri);
  return url !== null && url.protocol === 'https:' && !LOOPBACK_HOSTS.has(url.hostname);
}

/** The origin a browser is sent to, for the consent page's form-action (a private-use scheme is its scheme). */
export function redirectTarget(uri: string): string {
  const url = new URL(uri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}
