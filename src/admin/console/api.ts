/**
 * The console's one way to talk to the admin API: same-origin requests carrying the session
 * cookie, the CSRF token on every state change, and every refusal turned into an ApiError
 * whose message is the server's own wording (problem+json `detail`/`title`, or OAuth's
 * `error_description`).
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The problem's machine-readable code, when the server sent one. */
    readonly code?: string,
    /** The whole problem body, for pages that show more (per-line import errors). */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** Dispatched on `window` when the server no longer knows the session: the console returns to sign-in. */
export const SESSION_EXPIRED = 'admin-session-expired';

const SAFE_METHODS = new Set(['GET', 'HEAD']);
let csrfToken: string | undefined;

/** Kept from the session answer (sign-in, /me); sent as x-csrf-token on every state change. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

function headersFor(method: string, contentType?: string): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (contentType) headers['content-type'] = contentType;
  if (!SAFE_METHODS.has(method) && csrfToken) headers['x-csrf-token'] = csrfToken;
  return headers;
}

/** What a refusal says, in the server's words; a generic sentence when it sent no body. */
export function refusalMessage(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const problem = body as { detail?: unknown; title?: unknown; error_description?: unknown; message?: unknown };
    for (const text of [problem.detail, problem.error_description, problem.title, problem.message]) {
      if (typeof text === 'string' && text.length > 0) return text;
    }
  }
  if (status === 503) return 'The service is unavailable for a moment; try again shortly.';
  return `The server answered ${status}.`;
}

function errorCode(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  // RFC 9457 problems name their code in `type` (urn:results-api:admin:<code>); OAuth errors in `error`.
  const { type, error } = body as { type?: unknown; error?: unknown };
  if (typeof type === 'string') return type.slice(type.lastIndexOf(':') + 1);
  return typeof error === 'string' ? error : undefined;
}

async function parseBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One JSON request; resolves with the parsed body of a 2xx, rejects with an ApiError otherwise. */
export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: headersFor(method, body === undefined ? undefined : 'application/json'),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, 'The server could not be reached. Check your connection and try again.');
  }
  const parsed = await parseBody(response);
  if (response.status === 401 && errorCode(parsed) === 'unauthenticated') dispatchEvent(new Event(SESSION_EXPIRED));
  if (!response.ok) throw new ApiError(response.status, refusalMessage(response.status, parsed), errorCode(parsed), parsed);
  return parsed as T;
}

export const get = <T>(path: string) => request<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => request<T>('POST', path, body);
export const patch = <T>(path: string, body: unknown) => request<T>('PATCH', path, body);
export const put = <T>(path: string, body: unknown) => request<T>('PUT', path, body);
export const del = <T>(path: string) => request<T>('DELETE', path);

/**
 * A multipart upload with progress (fetch cannot report upload progress; XMLHttpRequest can).
 * `onProgress` gets the fraction sent, 0 to 1.
 */
export function upload<T>(path: string, form: FormData, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(headersFor('POST'))) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onerror = () => reject(new ApiError(0, 'The upload was interrupted. Check your connection and try again.'));
    xhr.onabort = () => reject(new ApiError(0, 'The upload was cancelled.'));
    xhr.onload = () => {
      let parsed: unknown = undefined;
      try {
        parsed = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        parsed = xhr.responseText;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(parsed as T);
      else reject(new ApiError(xhr.status, refusalMessage(xhr.status, parsed), errorCode(parsed), parsed));
    };
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(form);
  });
}

/** A query string from the set values only. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
