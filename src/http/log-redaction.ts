/**
 * What a logged URL or message may not carry, recognised by what a value is rather than by
 * where it appears: clients put secrets and tokens in every place a path or query allows,
 * encoded or not, on routes that exist and on ones that do not.
 */

export const REDACTED = '[redacted]';

/**
 * A client secret is 32 random bytes in base64url: 43 characters (see generateClientSecret);
 * longer opaque base64url values are treated alike. Our ids are shorter: UUIDs 36, client ids 20.
 */
const SECRET_LENGTH = 43;
/** A compact JWS/JWT is header.payload.signature in base64url; its first two parts are long. */
const JWT_PART_LENGTH = 8;
/** Query parameters whose value is a credential whatever it looks like. */
const SECRET_NAME = /secret|token|password|assertion|api_?key/i;
// For free text only (rare): in a per-request path, regexes like these cost microseconds.
const JWT_TEXT = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g;
const SECRET_TEXT = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43,}/g;

const isBase64url = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95;

/** Whether `value` holds a secret-shaped run or a JWT-shaped `part.part.`: one linear scan. */
function looksSecret(value: string): boolean {
  let run = 0;
  let jwtParts = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (isBase64url(c)) {
      if (++run >= SECRET_LENGTH) return true;
      continue;
    }
    jwtParts = c === 46 && run >= JWT_PART_LENGTH ? jwtParts + 1 : 0;
    if (jwtParts === 2) return true;
    run = 0;
  }
  return false;
}

function decoded(component: string): string {
  if (!component.includes('%') && !component.includes('+')) return component;
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
  // Most URLs hold nothing to redact, and without escapes, whether any part does shows in
  // the whole: one scan, and they are logged as they are.
  if (!url.includes('%') && !looksSecret(url) && (mark < 0 || (routed && !SECRET_NAME.test(url.slice(mark))))) {
    return url;
  }
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
  return text.replace(JWT_TEXT, REDACTED).replace(SECRET_TEXT, REDACTED);
}
