import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiProblem } from '../errors.js';
import { StoreConflictError } from '../store/conflicts.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../observability/database-unavailable.js';
import { redactSecrets } from '../http/log-redaction.js';
import { unknownFieldMessage } from '../http/validation-message.js';

/**
 * The admin API's refusals: RFC 9457 problem details, `type` naming the code. Every wording
 * that is not a repository's own (src/store/conflicts.ts) is written here once.
 */
export class AdminProblem extends Error {
  override name = 'AdminProblem';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly retryAfterSeconds?: number,
    /** One line per problem, when there are several (a test plan's fields, an import file's lines). */
    readonly errors?: readonly string[],
  ) {
    super(detail);
  }
}

export const adminProblems = {
  unauthenticated: () => new AdminProblem(401, 'unauthenticated', 'Sign in first (session cookie), or send an admin API token as Authorization: Bearer.'),
  badSignIn: () => new AdminProblem(401, 'sign-in-failed', 'The email, password or one-time code is wrong.'),
  totpRequired: () => new AdminProblem(401, 'totp-required', 'This account has a second factor: send totpCode, the 6-digit code of its authenticator app.'),
  throttled: (retryAfterSeconds: number) =>
    new AdminProblem(429, 'too-many-attempts', `Too many failed sign-ins; retry in ${retryAfterSeconds} s.`, retryAfterSeconds),
  csrf: () =>
    new AdminProblem(403, 'csrf-token-missing', 'A change made with the session cookie must carry the session\'s CSRF token in the X-CSRF-Token header.'),
  forbidden: (role: string) => new AdminProblem(403, 'forbidden', `The ${role} role may not do this.`),
  setupLinkInvalid: () =>
    new AdminProblem(
      400,
      'setup-link-invalid',
      'This setup link is unknown, already used or expired; ask an operator for a new one (results-api admins setup-link --email <email>).',
    ),
  weakPassword: (why: string) => new AdminProblem(400, 'weak-password', `${why}.`),
  totpInvalid: () => new AdminProblem(400, 'totp-invalid', 'The one-time code is wrong or was already used; enter the current code.'),
  totpNotStarted: () => new AdminProblem(400, 'totp-not-started', 'Start the enrolment first (POST /admin/api/me/totp).'),
  invalid: (detail: string, errors?: readonly string[]) => new AdminProblem(400, 'invalid-request', detail, undefined, errors),
};

const CONFLICT_STATUS: Record<StoreConflictError['code'], number> = {
  not_found: 404,
  duplicate: 409,
  revoked: 409,
  foreign_session: 409,
  secret_in_grace: 409,
  out_of_range: 400,
  not_failed: 409,
};

const TITLES: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 413: 'Content Too Large', 415: 'Unsupported Media Type', 416: 'Range Not Satisfiable', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' };

const body = (status: number, code: string, detail: string, errors?: readonly string[]) => ({
  type: `urn:results-api:admin:${code}`,
  title: TITLES[status] ?? 'Error',
  status,
  detail,
  ...(errors ? { errors } : {}),
});

/** Every admin error as problem details: never a stack trace, and a fault's message only in the log. */
export function registerAdminErrors(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).type('application/problem+json').send(body(404, 'not-found', `No admin route ${request.method} ${request.url.split('?')[0]}.`)),
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    reply.type('application/problem+json');
    if (error instanceof AdminProblem) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
      return reply.code(error.status).send(body(error.status, error.code, error.detail, error.errors));
    }
    if (error instanceof StoreConflictError) {
      const status = CONFLICT_STATUS[error.code];
      return reply.code(status).send(body(status, error.code.replace(/_/g, '-'), error.message));
    }
    // A rule shared with the public API (a delivery log's cursor) refuses with its own code and detail.
    if (error instanceof ApiProblem && error.status < 500) {
      return reply.code(error.status).send(body(error.status, error.code, error.detail));
    }
    if (error.validation) {
      return reply.code(400).send(body(400, 'invalid-request', redactSecrets(validationDetail(error))));
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ reason: error.message }, 'database unavailable');
      reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
      return reply.code(503).send(body(503, 'unavailable', `The database is unavailable; retry in ${DATABASE_RETRY_AFTER_SECONDS} s.`));
    }
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) {
      request.log.error({ err: { message: redactSecrets(error.message), type: error.name } }, 'admin request failed');
      return reply.code(500).send(body(500, 'internal', 'The server could not complete the request.'));
    }
    return reply.code(status).send(body(status, 'invalid-request', redactSecrets(error.message)));
  });
}

/** One sentence naming the field and its rule: `body needs email`, `querystring.limit must be <= 500`. */
function validationDetail(error: FastifyError): string {
  const where = error.validationContext ?? 'request';
  const first = error.validation?.[0];
  if (!first) return `The ${where} is invalid.`;
  const params = first.params as { missingProperty?: string; additionalProperty?: string };
  const at = first.instancePath ? `${where}.${first.instancePath.slice(1).replace(/\//g, '.')}` : where;
  if (params.missingProperty) return `${at} needs ${params.missingProperty}`;
  if (params.additionalProperty) return unknownFieldMessage(at, params.additionalProperty);
  return `${at} ${first.message ?? 'is invalid'}`;
}
