/**
 * Every error the service can return, with its status and public wording.
 *
 * Two families, two renderers (src/http/error-handler.ts):
 * - OAuthError: the authorization servers, RFC 6749 §5.2 `{error, error_description}`.
 * - ApiProblem: the Results API, RFC 9457 problem details.
 * `internal` is for the log only; clients never see it.
 */
import { READ_SCOPES } from './scope-names.js';

// --- OAuth (RFC 6749 §5.2, RFC 7009 §2.2.1, RFC 7662 §2.3) ------------------------------------

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_target'
  | 'slow_down'
  | 'server_error'
  | 'temporarily_unavailable';

const OAUTH_STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  invalid_target: 400,
  slow_down: 429,
  server_error: 500,
  // RFC 6749 §4.1.2.1 defines it for the authorization endpoint; here it carries the 503 a dependency outage is.
  temporarily_unavailable: 503,
};

export class OAuthError extends Error {
  override name = 'OAuthError';
  readonly status: number;
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly options: {
      internal?: string;
      basicChallenge?: boolean;
      retryAfterSeconds?: number;
      /** A more precise status than the code's own, for refusals before the endpoint (404, 405, 413, 415). */
      status?: number;
    } = {},
  ) {
    super(`${code}: ${description}`);
    this.status = options.status ?? OAUTH_STATUS[code];
  }
}

/** The one answer for every client-authentication failure, so none reveals which part was wrong. */
export const CLIENT_AUTH_FAILED = 'Client authentication failed. Either the client or the client credentials are invalid.';

export const oauthErrors = {
  invalidClient: (internal: string, basicChallenge: boolean) =>
    new OAuthError('invalid_client', CLIENT_AUTH_FAILED, { internal, basicChallenge }),
  invalidRequest: (description: string, status?: number) =>
    new OAuthError('invalid_request', description, status === undefined ? {} : { status }),
  unsupportedGrantType: (grantType: string) =>
    new OAuthError('unsupported_grant_type', `The grant type '${truncate(grantType)}' is not supported; use client_credentials, authorization_code or refresh_token.`),
  /** RFC 6749 §5.2: a code or refresh token that is unknown, expired, used, revoked, or not this client's; one answer for all. */
  invalidGrant: (internal: string) =>
    new OAuthError('invalid_grant', 'The authorization code or refresh token is invalid, expired, revoked, or was issued to another client.', { internal }),
  /** RFC 6749 §4.1.3 / RFC 7636 §4.6: what the code was issued for does not match this request. */
  invalidGrantMismatch: (what: string) => new OAuthError('invalid_grant', `The ${what} does not match the authorization request.`, { internal: `${what} mismatch` }),
  invalidScope: (scope: string, offered: string) =>
    new OAuthError('invalid_scope', `The requested scope '${truncate(scope)}' is not offered by this server; it offers '${offered}'.`),
  /** RFC 7591 §3.2.2. */
  invalidRedirectUri: (description: string) => new OAuthError('invalid_redirect_uri', description),
  invalidClientMetadata: (description: string) => new OAuthError('invalid_client_metadata', description),
  /** RFC 8707 §2: a `resource` this server issues no tokens for. */
  invalidTarget: (description: string) => new OAuthError('invalid_target', description),
  tooManyRequests: (retryAfterSeconds: number) =>
    new OAuthError('slow_down', 'Too many requests to the authorization server; retry later.', { retryAfterSeconds }),
  serverError: () => new OAuthError('server_error', 'The server encountered an unexpected condition.'),
  temporarilyUnavailable: (retryAfterSeconds: number) =>
    new OAuthError('temporarily_unavailable', `The service is temporarily unavailable; retry in ${retryAfterSeconds} s.`, {
      retryAfterSeconds,
    }),
};

// --- Results API (RFC 9457) -------------------------------------------------------------------

export type ProblemCode =
  | 'invalid-parameter'
  | 'unauthorized'
  | 'invalid-token'
  | 'insufficient-scope'
  | 'not-found'
  | 'method-not-allowed'
  | 'payload-too-large'
  | 'unsupported-media-type'
  | 'rate-limited'
  | 'malformed-request'
  | 'request-timeout'
  | 'headers-too-large'
  | 'internal'
  | 'unavailable'
  | 'link-refused'
  | 'origin-refused'
  | 'range-not-satisfiable';

const PROBLEM: Record<ProblemCode, { status: number; title: string }> = {
  'invalid-parameter': { status: 400, title: 'Invalid request parameter' },
  unauthorized: { status: 401, title: 'Authentication required' },
  'invalid-token': { status: 401, title: 'Invalid access token' },
  'insufficient-scope': { status: 403, title: 'Insufficient scope' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'malformed-request': { status: 400, title: 'Malformed request' },
  'request-timeout': { status: 408, title: 'Request timeout' },
  'headers-too-large': { status: 431, title: 'Request header fields too large' },
  internal: { status: 500, title: 'Internal server error' },
  unavailable: { status: 503, title: 'Service unavailable' },
  'link-refused': { status: 403, title: 'Link refused' },
  'origin-refused': { status: 403, title: 'Origin refused' },
  'range-not-satisfiable': { status: 416, title: 'Range not satisfiable' },
};

/** Problem `type` URIs are stable identifiers (RFC 9457 §3.1.1), not links. */
export const problemType = (code: ProblemCode): string => `urn:results-api:problem:${code}`;

export interface BearerChallenge {
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  description?: string;
  scope?: string;
  /** RFC 9728 §5.1: where the protected resource's metadata is, so a client can find its authorization servers. */
  resourceMetadata?: string;
}

export class ApiProblem extends Error {
  override name = 'ApiProblem';
  readonly status: number;
  readonly title: string;
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly options: { internal?: string; challenge?: BearerChallenge; retryAfterSeconds?: number } = {},
  ) {
    super(`${code}: ${detail}`);
    this.status = PROBLEM[code].status;
    this.title = PROBLEM[code].title;
  }
}

const READ_SCOPE_LIST = READ_SCOPES.join(' ');

export const apiErrors = {
  invalidParameter: (detail: string) => new ApiProblem('invalid-parameter', detail),
  /** A request Fastify refused before the handler: its body could not be read, or was too large or of the wrong type. */
  unreadableRequest: (status: 400 | 413 | 415, detail: string) =>
    new ApiProblem(status === 413 ? 'payload-too-large' : status === 415 ? 'unsupported-media-type' : 'invalid-parameter', detail),
  // RFC 6750 §3.1: no credentials at all gets a bare challenge, without an error code.
  missingToken: (resourceMetadata?: string) =>
    new ApiProblem(
      'unauthorized',
      'An access token is required: send "Authorization: Bearer <token>" or "token: <token>".',
      { challenge: { resourceMetadata } },
    ),
  bothTokenHeaders: (resourceMetadata?: string) =>
    new ApiProblem('invalid-parameter', 'Send the access token in one header only: "Authorization: Bearer" or "token", not both.', {
      challenge: { error: 'invalid_request', description: 'token sent in two headers', resourceMetadata },
    }),
  invalidToken: (internal: string, resourceMetadata?: string) =>
    new ApiProblem('invalid-token', 'The access token is invalid, expired or revoked.', {
      internal,
      challenge: { error: 'invalid_token', description: 'The access token is invalid, expired or revoked', resourceMetadata },
    }),
  /** A valid token bound (RFC 8707) to another of our resources than the one it was sent to. */
  wrongAudience: (internal: string, resourceMetadata: string) =>
    new ApiProblem('invalid-token', 'The access token was not issued for this resource; request one with its `resource`.', {
      internal,
      challenge: { error: 'invalid_token', description: 'The access token was not issued for this resource', resourceMetadata },
    }),
  /** Told apart from any other refusal (RFC 6750 allows it, Okta does it): the caller only needs a new token. */
  expiredToken: (resourceMetadata?: string) =>
    new ApiProblem('invalid-token', 'The access token has expired; request a new one.', {
      internal: 'token expired',
      challenge: { error: 'invalid_token', description: 'The access token expired', resourceMetadata },
    }),
  /** `needed`: the scopes of which the token must carry one (the read scopes unless told). */
  insufficientScope: (resourceMetadata?: string, needed: readonly string[] = READ_SCOPES) =>
    new ApiProblem(
      'insufficient-scope',
      needed === READ_SCOPES ? `The access token does not grant a read scope (${READ_SCOPES.join(' or ')}).` : `The access token does not grant ${needed.join(' or ')}.`,
      { challenge: { error: 'insufficient_scope', scope: needed === READ_SCOPES ? READ_SCOPE_LIST : needed.join(' '), resourceMetadata } },
    ),
  /** A token narrowed to some resource families (an app acting for a user), asked for another. */
  familyNotGranted: (scope: string) =>
    new ApiProblem('insufficient-scope', `The access token does not grant ${scope}, which this request needs.`, {
      challenge: { error: 'insufficient_scope', scope },
    }),
  testNotFound: (internal: string) => new ApiProblem('not-found', 'Test not found', { internal }),
  workspaceNotFound: (internal: string) => new ApiProblem('not-found', 'Workspace not found', { internal }),
  studyNotFound: (internal: string) => new ApiProblem('not-found', 'Study not found', { internal }),
  sessionNotFound: (internal: string) => new ApiProblem('not-found', 'Session not found', { internal }),
  transcriptNotFound: (internal: string) => new ApiProblem('not-found', 'Transcript not found', { internal }),
  videoNotFound: (internal: string) => new ApiProblem('not-found', 'Video not found', { internal }),
  /** One answer for every refused media link (tampered, expired, or for another object), so none leaks which. */
  mediaLinkRefused: (internal: string) =>
    new ApiProblem('link-refused', 'This link is invalid or has expired; ask the API for a new one.', { internal }),
  mediaGone: (internal: string) => new ApiProblem('not-found', 'This file no longer exists; ask the API for a new link.', { internal }),
  /** A browser page of another site (DNS rebinding, or a page that is not ours) calling the MCP endpoint. */
  originRefused: (origin: string) =>
    new ApiProblem('origin-refused', `Requests from the origin '${truncate(origin)}' are not accepted; only this server's own pages may call it from a browser.`),
  rangeNotSatisfiable: (size: number) => new ApiProblem('range-not-satisfiable', `The requested range lies outside the ${size} bytes of the file.`),
  clipNotFound: (internal: string) => new ApiProblem('not-found', 'Clip not found', { internal }),
  reelNotFound: (internal: string) => new ApiProblem('not-found', 'Highlight reel not found', { internal }),
  webhookNotFound: (internal: string) => new ApiProblem('not-found', 'Webhook not found', { internal }),
  deliveryNotFound: (internal: string) => new ApiProblem('not-found', 'Delivery not found', { internal }),
  routeNotFound: (method: string, url: string) =>
    new ApiProblem('not-found', `No endpoint answers ${method} ${truncate(pathOf(url))}.`),
  methodNotAllowed: (method: string, url: string, allowed: readonly string[]) =>
    new ApiProblem('method-not-allowed', `${truncate(pathOf(url))} answers ${allowed.join(', ')}, not ${truncate(method)}.`),
  /** Per user, the limit is the real service's (COMPAT=usertesting), and the answer says what it allows. */
  rateLimited: (retryAfterSeconds: number, limit?: { apiLimitedPer: 'client' | 'user'; apiPerWindow: number; windowSeconds: number }) =>
    new ApiProblem(
      'rate-limited',
      limit?.apiLimitedPer === 'user'
        ? `Too many requests: a user may make ${limit.apiPerWindow} Results API requests per ${limit.windowSeconds} seconds; retry in ${retryAfterSeconds} s.`
        : `Rate limit exceeded; retry in ${retryAfterSeconds} s.`,
      { retryAfterSeconds },
    ),
  internal: () => new ApiProblem('internal', 'The server encountered an unexpected condition.'),
  unavailable: (retryAfterSeconds: number) =>
    new ApiProblem('unavailable', `The service is temporarily unavailable; retry in ${retryAfterSeconds} s.`, { retryAfterSeconds }),
  // Refused before routing: by Node's HTTP parser, or by the router (see src/http/unrouted-errors.ts).
  malformedRequest: (detail: string, internal?: string) =>
    new ApiProblem('malformed-request', detail, internal === undefined ? {} : { internal }),
  requestTimeout: () => new ApiProblem('request-timeout', 'The request was not received in time.'),
  headersTooLarge: () => new ApiProblem('headers-too-large', 'The request headers are larger than 16 KiB.'),
};

const pathOf = (url: string): string => url.split('?')[0] ?? '';

/** Echoing client input into messages is useful, but never at any length. */
export function truncate(value: string, max = 64): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > max ? `${printable.slice(0, max)}…` : printable;
}
