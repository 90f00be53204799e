import { Type, type TSchema } from '@sinclair/typebox';

/**
 * A response header as route schemas declare it: its value's schema, plus whether every
 * response of that status carries it. Fastify ignores `headers` in response schemas;
 * @fastify/swagger turns each entry into an OpenAPI Header Object (src/docs/openapi.ts lifts
 * `x-required` into the Header Object's `required`).
 */
export function responseHeader(schema: TSchema, options: { required: boolean }): TSchema {
  return options.required ? { ...schema, 'x-required': true } : schema;
}

export type ResponseHeaders = Record<string, TSchema>;

/** A fixed `Cache-Control` value, documented as the exact value sent. */
export const cacheControlHeader = (value: string, why: string): ResponseHeaders => ({
  'Cache-Control': responseHeader(Type.Literal(value, { description: why }), { required: true }),
});

/** What the Results API sends with every answer: per caller, never stored by any cache. */
export const API_CACHE_CONTROL = 'private, no-store';

/** `Pragma: no-cache` beside `Cache-Control` for HTTP/1.0 caches, as the real service sends it. */
export const PRAGMA_NO_CACHE = 'no-cache';

/** RFC 6797: a year, the value the real service sends; refreshed by every https response. */
export const HSTS_VALUE = 'max-age=31536000';

/**
 * Whether responses carry Strict-Transport-Security: only when the public URL is https (a
 * browser ignores it over http anyway, and an http-only deployment must not promise https).
 */
export const sendsHsts = (publicUrl: string): boolean => new URL(publicUrl).protocol === 'https:';

/** The Results API's caching headers (Cache-Control and Pragma), documented as sent. */
export const apiCacheHeaders = (why: string): ResponseHeaders => ({
  ...cacheControlHeader(API_CACHE_CONTROL, why),
  Pragma: responseHeader(Type.Literal(PRAGMA_NO_CACHE, { description: 'For HTTP/1.0 caches, beside Cache-Control.' }), { required: true }),
  'Strict-Transport-Security': responseHeader(
    Type.Literal(HSTS_VALUE, { description: 'Sent when the server is published over https (PUBLIC_URL): use https only, for a year.' }),
    { required: false },
  ),
});

/**
 * A non-negative integer as a header value, for values that change from one request to the
 * next (a rate limit's remaining count). Not `String(n)`: V8 remembers each number it turns
 * into a string that way in a cache that lives in the old generation, and keeps the string
 * until ~16,000 later conversions have overwritten its slot, so a string made per request
 * outlives two young-generation collections, is promoted, and dies there. Under a high limit
 * that was ~30 bytes of old-generation garbage per request: most of the old generation's
 * growth under the bench's list load (docs/PERFORMANCE.md). `toFixed` builds the same digits
 * without the cache.
 */
export const integerHeaderValue = (n: number): string => n.toFixed(0);

/** RFC 9110 §10.2.3, in its delay-seconds form. */
export const retryAfterHeader: ResponseHeaders = {
  'Retry-After': responseHeader(Type.Integer({ minimum: 0, description: 'Seconds to wait before retrying.' }), { required: true }),
};

/** A JSON response body under one media type, the form Fastify and @fastify/swagger both read. */
export function jsonResponse(
  description: string,
  schema: TSchema,
  options: { headers?: ResponseHeaders; mediaType?: string } = {},
): { description: string; headers?: ResponseHeaders; content: Record<string, { schema: TSchema }> } {
  return {
    description,
    ...(options.headers ? { headers: options.headers } : {}),
    content: { [options.mediaType ?? 'application/json']: { schema } },
  };
}
