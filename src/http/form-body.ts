import type { FastifyInstance } from 'fastify';

/** JSON bodies of the webhooks extension: a subscription, well under this. */
export const JSON_BODY_LIMIT = 16 * 1024;

/**
 * JSON bodies, in a scope that takes them (the webhooks extension): Fastify's own parser,
 * which refuses `__proto__` and `constructor.prototype` keys.
 */
export function registerJsonBodyParser(scope: FastifyInstance): void {
  scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT }, scope.getDefaultJsonParser('error', 'error'));
}

/** Form bodies of the OAuth endpoints are small; anything bigger is not a token request. */
export const FORM_BODY_LIMIT = 16 * 1024;

/**
 * Parses application/x-www-form-urlencoded bodies, the only kind accepted. A key given twice
 * becomes an array, which the route schemas reject (RFC 6749 §3.2: parameters must not be
 * included more than once).
 */
export function registerFormBodyParser(app: FastifyInstance): void {
  // Every body this service accepts is a form (RFC 6749 §4.4.2, RFC 7662 §2.1, RFC 7009 §2.1);
  // Fastify's default JSON and text parsers would let other bodies through to the routes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      const fields: Record<string, string | string[]> = Object.create(null);
      for (const [key, value] of new URLSearchParams(body as string)) {
        const seen = fields[key];
        fields[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
      }
      done(null, fields);
    },
  );
}
