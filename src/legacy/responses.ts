import type { TSchema } from '@sinclair/typebox';
import { BEARER_REALM } from '../http/error-handler.js';
import { apiCacheHeaders, jsonResponse, retryAfterHeader } from '../http/response-headers.js';
import { READ_SCOPES } from '../scope-names.js';
import { API_HEADERS, wwwAuthenticate } from '../results/responses.js';
import { HttpErrorResponse } from './schemas.js';

const error = (description: string, headers = {}) =>
  jsonResponse(description, HttpErrorResponse, { headers: { ...API_HEADERS, ...headers } });

/**
 * Every response a Legacy (v1) operation can give: the same statuses and rules as the Results
 * API, with the family's own error body.
 */
export function legacyResponses(ok: { description: string; schema: TSchema }, options: { notFound?: string; badRequest?: string } = {}) {
  return {
    200: jsonResponse(ok.description, ok.schema, { headers: API_HEADERS }),
    400: error(
      `${options.badRequest ?? 'A parameter breaks its rule (errorMessage names it)'}, or the token was sent in both headers ` +
        'or in an Authorization header that is not Bearer.',
      wwwAuthenticate(false, `Bearer realm="${BEARER_REALM}", error="invalid_request"`),
    ),
    401: error(
      'No access token, or one that is malformed, badly signed, expired, revoked or for another issuer or audience.',
      wwwAuthenticate(true, `Bearer realm="${BEARER_REALM}", error="invalid_token"`),
    ),
    403: error(
      'The token is valid but grants no read scope.',
      wwwAuthenticate(true, `Bearer realm="${BEARER_REALM}", error="insufficient_scope", scope="${READ_SCOPES.join(' ')}"`),
    ),
    ...(options.notFound ? { 404: error(options.notFound) } : {}),
    429: error("The client's request budget for the window is spent; retry after `Retry-After` seconds.", retryAfterHeader),
    500: jsonResponse('An unexpected fault; the detail is in the server log, never in the response.', HttpErrorResponse, {
      headers: apiCacheHeaders('Never stored.'),
    }),
    503: jsonResponse('The database is unreachable for the moment; retry after `Retry-After` seconds.', HttpErrorResponse, {
      headers: { ...apiCacheHeaders('Never stored.'), ...retryAfterHeader },
    }),
  };
}
