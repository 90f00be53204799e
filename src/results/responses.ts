import { Type, type TSchema } from '@sinclair/typebox';
import { problemType, type ProblemCode } from '../errors.js';
import { READ_SCOPES } from '../scope-names.js';
import { BEARER_REALM } from '../http/error-handler.js';
import { apiCacheHeaders, jsonResponse, responseHeader, retryAfterHeader, type ResponseHeaders } from '../http/response-headers.js';
import { Problem } from './schemas.js';

/** Set by the API guard on every response that got as far as the rate limit. */
const RATE_LIMIT_HEADERS: ResponseHeaders = {
  'x-ratelimit-limit': responseHeader(Type.Integer({ minimum: 1, description: 'Requests allowed per window for this client.' }), {
    required: true,
  }),
  'x-ratelimit-remaining': responseHeader(Type.Integer({ minimum: 0, description: 'Requests left in the current window.' }), {
    required: true,
  }),
  'x-ratelimit-reset': responseHeader(Type.Integer({ minimum: 0, description: 'Seconds until the window resets.' }), {
    required: true,
  }),
};

export const API_HEADERS: ResponseHeaders = {
  ...apiCacheHeaders('Results are per caller and change as sessions are imported; never stored.'),
  ...RATE_LIMIT_HEADERS,
};

/** RFC 6750 §3. */
export const wwwAuthenticate = (required: boolean, example: string): ResponseHeaders => ({
  'WWW-Authenticate': responseHeader(
    Type.String({ pattern: '^Bearer realm=', description: 'RFC 6750 §3 Bearer challenge.', examples: [example] }),
    { required },
  ),
});

const PROBLEM_TITLES: Record<number, string> = {
  400: 'InvalidParameterProblem',
  401: 'UnauthorizedProblem',
  403: 'InsufficientScopeProblem',
  404: 'NotFoundProblem',
  416: 'RangeNotSatisfiableProblem',
  429: 'RateLimitedProblem',
  500: 'InternalProblem',
  503: 'UnavailableProblem',
};

/**
 * RFC 9457 problem details whose `type` and `status` are those this response can carry,
 * named by status (a named component in the OpenAPI document).
 */
function problemBody(status: number, codes: ProblemCode[], title = PROBLEM_TITLES[status]): TSchema {
  return Type.Object(
    {
      type: Type.Unsafe<string>({
        type: 'string',
        enum: codes.map(problemType),
        description: 'Stable identifier of the problem (a URN, not a link).',
      }),
      title: Type.String({ description: "Short summary of the problem's type." }),
      status: Type.Unsafe<number>({ type: 'integer', const: status, description: 'The HTTP status code.' }),
      detail: Type.String({ description: 'What was wrong with this request, e.g. the parameter and its rule.' }),
    },
    { description: Problem.description, title },
  );
}

/**
 * A problem-details response. `outsideApi`: one answered outside the API guard (no rate-limit
 * headers), whose body schema is named `title` (a status's default name belongs to the API's).
 */
export const problemResponse = (
  status: number,
  codes: ProblemCode[],
  description: string,
  headers: ResponseHeaders = {},
  outsideApi?: { title: string },
) =>
  jsonResponse(description, problemBody(status, codes, outsideApi?.title), {
    headers: { ...(outsideApi ? apiCacheHeaders('Never stored.') : API_HEADERS), ...headers },
    mediaType: 'application/problem+json',
  });

/** The 404s of lookups that answer "no such thing" and "not yours" alike, each worded once. */
export const NOT_FOUND = {
  test: 'Test not found: no such test, or none in a workspace where the caller is a member (the same answer for both).',
  session: 'Session not found: no such session, or its test is in no workspace where the caller is a member (the same answer for both).',
  study: 'Study not found: no such test, or none in a workspace where the caller is a member (the same answer for both).',
} as const;

/**
 * Every response a Results API operation can give: the 200 it names, and the problem details
 * the API guard, the validation and the error handler produce. `notFound` documents the 404
 * of an operation that looks something up; `ok.mediaType` names a 200 body that is not JSON.
 */
export function apiResponses(ok: { description: string; schema: TSchema; mediaType?: string }, options: { notFound?: string } = {}) {
  return {
    200: jsonResponse(ok.description, ok.schema, { headers: API_HEADERS, ...(ok.mediaType ? { mediaType: ok.mediaType } : {}) }),
    400: problemResponse(
      400,
      ['invalid-parameter'],
      'A parameter breaks its rule (`detail` names it and the rule), or the token was sent in both headers or in an ' +
        'Authorization header that is not Bearer (then with a challenge carrying error="invalid_request").',
      wwwAuthenticate(false, `Bearer realm="${BEARER_REALM}", error="invalid_request"`),
    ),
    401: problemResponse(
      401,
      ['unauthorized', 'invalid-token'],
      'No access token (a bare challenge), or one that is malformed, badly signed, expired, revoked or for another ' +
        'issuer or audience (error="invalid_token").',
      wwwAuthenticate(true, `Bearer realm="${BEARER_REALM}", error="invalid_token"`),
    ),
    403: problemResponse(
      403,
      ['insufficient-scope'],
      'The token is valid but grants no read scope (error="insufficient_scope").',
      wwwAuthenticate(true, `Bearer realm="${BEARER_REALM}", error="insufficient_scope", scope="${READ_SCOPES.join(' ')}"`),
    ),
    ...(options.notFound ? { 404: problemResponse(404, ['not-found'], options.notFound) } : {}),
    429: problemResponse(
      429,
      ['rate-limited'],
      "The client's request budget for the window is spent; retry after `Retry-After` seconds.",
      retryAfterHeader,
    ),
    500: jsonResponse('An unexpected fault; the detail is in the server log, never in the response.', problemBody(500, ['internal']), {
      headers: apiCacheHeaders('Never stored.'),
      mediaType: 'application/problem+json',
    }),
    503: jsonResponse('The database is unreachable for the moment; retry after `Retry-After` seconds.', problemBody(503, ['unavailable']), {
      headers: { ...apiCacheHeaders('Never stored.'), ...retryAfterHeader },
      mediaType: 'application/problem+json',
    }),
  };
}
