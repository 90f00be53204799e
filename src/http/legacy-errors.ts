import { STATUS_CODES } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { ApiProblem } from '../errors.js';
import { bearerChallenge } from './error-handler.js';
import { API_CACHE_CONTROL, PRAGMA_NO_CACHE } from './response-headers.js';

/** The Legacy (v1) family: `/usertesting/api/v1/...` and the same paths without the prefix. */
export const isLegacyPath = (url: string): boolean => /^\/(usertesting\/api\/)?v1(\/|\?|$)/.test(url);

/** e.g. 404 → NOT_FOUND: the family's code is derived from the status. */
export const legacyErrorCode = (status: number): string =>
  (STATUS_CODES[status] ?? 'Error').toUpperCase().replace(/[^A-Z0-9]+/g, '_');

/** The family's error body. */
export const legacyErrorBody = (err: ApiProblem) => ({ errorCode: legacyErrorCode(err.status), errorMessage: err.detail });

/** The same refusal as sendProblem (status, challenge, Retry-After), in the Legacy family's body. */
export function sendLegacyError(reply: FastifyReply, err: ApiProblem): FastifyReply {
  reply.code(err.status).header('cache-control', API_CACHE_CONTROL).header('pragma', PRAGMA_NO_CACHE);
  if (err.options.challenge) reply.header('www-authenticate', bearerChallenge(err.options.challenge));
  if (err.options.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.options.retryAfterSeconds));
  return reply.type('application/json; charset=utf-8').send(legacyErrorBody(err));
}
