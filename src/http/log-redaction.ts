/**
 * What a logged URL or message may not carry, recognised by what a value is rather than by
 * where it appears: clients put secrets and tokens in every place a path or query allows,
 * encoded or not, on routes that exist and on ones that do not.
 */

export const REDACTED = '[redacted]';

/** A compact JWS/JWT: header.payload.signature, base64url. */
const JWT_SHAPE = /[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g;
/**
 * A client secret (32 random bytes, base64url: 43 characters, see generateClientSecret) or
 * any longer opaque base64 value. Our ids are shorter: UUIDs 36, client ids 20.
 */
const SECRET_SHAPE = /[A-Za-z0-9_+/-]{43,}={0,2}/g;
/** Query parameters whose value is a credential whatever it looks like. */
const SECRET_NAME = /secret|token|password|assertion|api_?key/i;

function looksSecret(value: string): boolean {
  JWT_SHAPE.lastIndex = 0;
  SECRET_SHAPE.lastIndex = 0;
  return JWT_SHAPE.test(value) || SECRET_SHAPE.test(value);
}

function decoded(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    return component;
  }
}

/**
 * A request URL fit for the log: path segments and query parameters shaped like a token or
 * a secret, and values of credential-named parameters, become `[redacted]`; a request that
 * matched no route loses its whole query (nothing defines what its parameters mean).
 */
export function redactRequestUrl(url: string, routed: boolean): string {
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const safePath = path
    .split('/')
    .map((segment) => (looksSecret(decoded(segment)) ? REDACTED : segment))
    .join('/');
  if (mark < 0) return safePath;
  if (!routed) return `${safePath}?${REDACTED}`;
  const safeQuery = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decoded(eq < 0 ? pair : pair.slice(0, eq));
      if (looksSecret(name)) return REDACTED;
      if (eq < 0) return pair;
      return SECRET_NAME.test(name) || looksSecret(decoded(pair.slice(eq + 1))) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
  return `${safePath}?${safeQuery}`;
}

/** Free text (an error message that may quote a parameter) with token- and secret-shaped runs replaced. */
export function redactSecrets(text: string): string {
  return text.replace(JWT_SHAPE, REDACTED).replace(SECRET_SHAPE, REDACTED);
}
