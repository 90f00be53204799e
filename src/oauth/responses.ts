import { Type, type TSchema } from '@sinclair/typebox';
import type { OAuthErrorCode } from '../errors.js';
import { cacheControlHeader, jsonResponse, responseHeader, retryAfterHeader, type ResponseHeaders } from '../http/response-headers.js';
import { OAuthErrorBody } from './schemas.js';

/** RFC 6749 §5.1 (and RFC 7662 §2.2 by extension): nothing an endpoint answers is stored. */
const NO_STORE: ResponseHeaders = {
  ...cacheControlHeader('no-store', 'RFC 6749 §5.1: responses carrying or describing tokens must not be stored.'),
  Pragma: responseHeader(Type.Literal('no-cache', { description: 'For HTTP/1.0 caches (RFC 6749 §5.1).' }), { required: true }),
};

/**
 * RFC 6749 §5.2 error body whose `error` is one of the codes this response can carry, named
 * after them (a named component in the OpenAPI document): `invalid_client` → InvalidClientError.
 */
function oauthErrorBody(codes: OAuthErrorCode[], title?: string): TSchema {
  const pascal = (code: string) => code.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
  title ??= `${codes.map(pascal).join('Or')}${codes.at(-1) === 'server_error' ? '' : 'Error'}`;
  return Type.Object(
    {
      error: Type.Unsafe<OAuthErrorCode>({ type: 'string', enum: codes, description: 'RFC 6749 §5.2 error code.' }),
      error_description: Type.String({ description: 'Human-readable explanation; never says which credential part was wrong.' }),
    },
    { description: OAuthErrorBody.description, title },
  );
}

const errorResponse = (codes: OAuthErrorCode[], description: string, headers: ResponseHeaders = {}, title?: string) =>
  jsonResponse(description, oauthErrorBody(codes, title), { headers: { ...NO_STORE, ...headers } });

/**
 * Every response of an endpoint where the client authenticates (token, introspection,
 * revocation): the success it names, then the errors the form parser, validation, client
 * authentication and the endpoint itself produce.
 */
export function clientAuthenticatedResponses(
  ok: { description: string; schema: TSchema | null },
  options: { badRequest: { codes: OAuthErrorCode[]; description: string; title?: string }; throttled?: boolean },
) {
  return {
    200: ok.schema
      ? jsonResponse(ok.description, ok.schema, { headers: NO_STORE })
      : { type: 'null', description: ok.description, headers: NO_STORE },
    400: errorResponse(options.badRequest.codes, options.badRequest.description, {}, options.badRequest.title),
    401: errorResponse(
      ['invalid_client'],
      'Client authentication failed: unknown client, wrong secret, revoked credential or disabled user, all with the ' +
        'same answer. A client that tried HTTP Basic also gets a `WWW-Authenticate: Basic` challenge.',
      { 'WWW-Authenticate': responseHeader(Type.String({ pattern: '^Basic realm=', examples: ['Basic realm="results-api"'] }), { required: false }) },
    ),
    413: errorResponse(['invalid_request'], 'The form body is larger than 16 KiB.'),
    415: errorResponse(['invalid_request'], 'The body is not `application/x-www-form-urlencoded`.'),
    ...(options.throttled
      ? {
          429: errorResponse(
            ['slow_down'],
            'Too many requests from this address, or too many failed authentications of this client id from this address or from everywhere; retry after `Retry-After` seconds.',
            retryAfterHeader,
          ),
        }
      : {}),
    500: errorResponse(['server_error'], 'An unexpected fault; the detail is in the server log, never in the response.'),
    503: errorResponse(
      ['temporarily_unavailable'],
      'The database is unreachable for the moment; retry after `Retry-After` seconds.',
      retryAfterHeader,
    ),
  };
}

/** A public, cacheable document (JWKS, metadata). */
export function publicDocumentResponses(ok: { description: string; schema: TSchema; maxAgeSeconds: number; why: string }) {
  return {
    200: jsonResponse(ok.description, ok.schema, {
      headers: cacheControlHeader(`public, max-age=${ok.maxAgeSeconds}`, ok.why),
    }),
  };
}
