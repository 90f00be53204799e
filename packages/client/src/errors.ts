/**
 * What a failed call throws. A response with an error status is a {@link ResultsApiError};
 * a request that got no response at all is a {@link ResultsNetworkError}. Aborts and
 * timeouts reject with the signal's reason (`AbortError` / `TimeoutError` DOMException),
 * as `fetch` itself does.
 */

/** RFC 9457 problem details, as the Results API returns them. */
export interface ProblemDetails {
  /** A stable URI naming the problem, e.g. `urn:results-api:problem:not-found`. */
  type: string;
  title: string;
  status: number;
  /** What went wrong with this request, in words meant for the caller. */
  detail: string;
}

/** RFC 6749 §5.2 error response, as the authorization server returns it. */
export interface OAuthErrorDetails {
  /** e.g. `invalid_client`, `invalid_scope`. */
  error: string;
  error_description?: string;
}

/** The error body of the Legacy (v1) family. */
export interface LegacyErrorDetails {
  /** The status as a word, e.g. `NOT_FOUND`. */
  errorCode: string;
  errorMessage: string;
}

/** Everything {@link ResultsApiError} is built from. */
export interface ResultsApiErrorInit {
  method: string;
  /** The request URL without its query. */
  url: string;
  status: number;
  problem?: ProblemDetails;
  oauth?: OAuthErrorDetails;
  legacy?: LegacyErrorDetails;
  retryAfterSeconds?: number;
  requestId?: string;
  /** Why a successful status still failed (a body that is not the expected JSON). */
  reason?: string;
}

/** The service answered, and the answer is a failure: an error status or an unreadable body. */
export class ResultsApiError extends Error {
  override name = 'ResultsApiError';
  /** The HTTP status, e.g. 401, 404, 429. */
  readonly status: number;
  /** The HTTP method of the failed request. */
  readonly method: string;
  /** The URL of the failed request, without its query. */
  readonly url: string;
  /** The Results API's problem details, when the body was one. */
  readonly problem: ProblemDetails | undefined;
  /** The authorization server's error, when the body was one. */
  readonly oauth: OAuthErrorDetails | undefined;
  /** The Legacy (v1) family's error, when the body was one. */
  readonly legacy: LegacyErrorDetails | undefined;
  /** Seconds the server asked to wait (`Retry-After`), when it said. */
  readonly retryAfterSeconds: number | undefined;
  /** The server's `x-request-id`, for support requests. */
  readonly requestId: string | undefined;

  constructor(init: ResultsApiErrorInit) {
    super(describe(init));
    this.status = init.status;
    this.method = init.method;
    this.url = init.url;
    this.problem = init.problem;
    this.oauth = init.oauth;
    this.legacy = init.legacy;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.requestId = init.requestId;
  }
}

/** The request got no HTTP response (connection refused or reset, DNS failure), retries included. */
export class ResultsNetworkError extends Error {
  override name = 'ResultsNetworkError';
  /** The HTTP method of the failed request. */
  readonly method: string;
  /** The URL of the failed request, without its query. */
  readonly url: string;

  constructor(method: string, url: string, cause: unknown) {
    super(`${method} ${url} failed: ${causeMessage(cause)}`, { cause });
    this.method = method;
    this.url = url;
  }
}

/**
 * What to check when the authorization server refuses the client: the server never says which
 * part was wrong (RFC 6749 §5.2), so the message names the usual causes.
 */
export const INVALID_CLIENT_HINT =
  'Check the client id and secret (a revoked credential, or a secret rotated out and past its grace period, ' +
  'no longer works) and that authUrl names the server that issued them.';

function describe(init: ResultsApiErrorInit): string {
  const what = `${init.method} ${init.url} answered ${init.status}`;
  if (init.problem) return `${what} ${init.problem.title}: ${init.problem.detail}`;
  if (init.legacy) return `${what} ${init.legacy.errorCode}: ${init.legacy.errorMessage}`;
  if (init.oauth) {
    const said = `${what} ${init.oauth.error}${init.oauth.error_description ? `: ${init.oauth.error_description}` : ''}`;
    return init.oauth.error === 'invalid_client' ? `${said} ${INVALID_CLIENT_HINT}` : said;
  }
  return init.reason ? `${what}: ${init.reason}` : what;
}

function causeMessage(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  // Node's fetch reports "fetch failed" and puts the useful part (ECONNREFUSED …) in its cause.
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
  return `${cause.message}${inner}`;
}

/** Reads an error body as problem details, an OAuth error or a Legacy (v1) error, whichever it is. */
export function parseErrorBody(body: unknown): { problem?: ProblemDetails; oauth?: OAuthErrorDetails; legacy?: LegacyErrorDetails } {
  if (typeof body !== 'object' || body === null) return {};
  const b = body as Record<string, unknown>;
  if (typeof b.title === 'string' && typeof b.status === 'number') {
    return {
      problem: {
        type: typeof b.type === 'string' ? b.type : 'about:blank',
        title: b.title,
        status: b.status,
        detail: typeof b.detail === 'string' ? b.detail : '',
      },
    };
  }
  if (typeof b.errorCode === 'string' && typeof b.errorMessage === 'string') {
    return { legacy: { errorCode: b.errorCode, errorMessage: b.errorMessage } };
  }
  if (typeof b.error === 'string') {
    return {
      oauth: {
        error: b.error,
        ...(typeof b.error_description === 'string' ? { error_description: b.error_description } : {}),
      },
    };
  }
  return {};
}
