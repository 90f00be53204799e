import type { FastifyInstance } from 'fastify';

/** Form bodies of the OAuth endpoints are small; anything bigger is not a token request. */
export const FORM_BODY_LIMIT = 16 * 1024;

/**
 * Parses application/x-www-form-urlencoded bodies. A key given twice becomes an array, which
 * the route schemas reject (RFC 6749 §3.2: parameters must not be included more than once).
 */
export function registerFormBodyParser(app: FastifyInstance): void {
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
