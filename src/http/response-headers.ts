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
