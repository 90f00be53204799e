import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiProblem, OAuthError, apiErrors, oauthErrors, problemType, truncate, type BearerChallenge } from '../errors.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../observability/database-unavailable.js';
import { API_CACHE_CONTROL, PRAGMA_NO_CACHE } from './response-headers.js';
import { redactSecrets } from './log-redaction.js';
import { validationMessage } from './validation-message.js';

export const BEARER_REALM = 'results-api';

/**
 * Paths under /oauth2/ speak RFC 6749 errors; everything else speaks RFC 9457. The router
 * decodes percent-encoding (`/%6fauth2/...` reaches the token route), so this does too.
 */
export const isOAuthPath = (url: string): boolean =>
  url.startsWith('/oauth2/') || (url.includes('%') && decodedPrefix(url).startsWith('/oauth2/'));

function decodedPrefix(url: string): string {
  try {
    return decodeURIComponent(url.slice(0, 40).replace(/%[0-9A-Fa-f]?$/, ''));
  } catch {
    return url;
  }
}

/** RFC 6749 §5.2 error body. */
export const oauthErrorBody = (err: OAuthError) => ({ error: err.code, error_description: err.description });

/** RFC 9457 problem details body. */
export const problemBody = (err: ApiProblem) => ({ type: problemType(err.code), title: err.title, status: err.status, detail: err.detail });

/**
 * An API family whose refusals have a body of their own in place of problem details (the same
 * status, challenge and Retry-After). The app registers them; this layer knows none by name.
 */
export interface ErrorFamily {
  owns(path: string): boolean;
  contentType: string;
  body(err: ApiProblem): unknown;
}

const PROBLEM_DETAILS: ErrorFamily = { owns: () => true, contentType: 'application/problem+json; charset=utf-8', body: problemBody };

/** The family whose body answers a refusal on `path`: the first registered one that owns it, else problem details. */
export const errorFamilyOf = (families: readonly ErrorFamily[], path: string): ErrorFamily =>
  families.find((family) => family.owns(path)) ?? PROBLEM_DETAILS;

export function sendOAuthError(reply: FastifyReply, err: OAuthError): FastifyReply {
  reply.code(err.status).header('cache-control', 'no-store').header('pragma', 'no-cache');
  // RFC 6749 §5.2: a client that tried HTTP Basic gets the matching challenge.
  if (err.options.basicChallenge) reply.header('www-authenticate', `Basic realm="${BEARER_REALM}"`);
  if (err.options.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.options.retryAfterSeconds));
  return reply.type('application/json').send(oauthErrorBody(err));
}

/** RFC 6750 §3 and RFC 9728 §5.1: `Bearer realm="…", error="…", error_description="…", scope="…", resource_metadata="…"`. */
export function bearerChallenge(c: BearerChallenge): string {
  const parts = [`realm="${BEARER_REALM}"`];
  if (c.error) parts.push(`error="${c.error}"`);
  if (c.description) parts.push(`error_description="${c.description.replace(/["\\]/g, '')}"`);
  if (c.scope) parts.push(`scope="${c.scope}"`);
  if (c.resourceMetadata) parts.push(`resource_metadata="${c.resourceMetadata}"`);
  return `Bearer ${parts.join(', ')}`;
}

/** An API refusal (status, challenge, Retry-After) in the body of its path's family (problem details unless one is registered). */
export function sendApiError(reply: FastifyReply, url: string, err: ApiProblem, families: readonly ErrorFamily[]): FastifyReply {
  reply.code(err.status).header('cache-control', API_CACHE_CONTROL).header('pragma', PRAGMA_NO_CACHE);
  if (err.options.challenge) reply.header('www-authenticate', bearerChallenge(err.options.challenge));
  if (err.options.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.options.retryAfterSeconds));
  const family = errorFamilyOf(families, url);
  return reply.type(family.contentType).send(family.body(err));
}

/**
 * The one place where anything thrown by a route becomes a response: our own errors are
 * rendered as they are, Fastify's request errors become 4xx in the path's family, the database
 * unreachable is a 503 with Retry-After (logged once per outage by `onDatabaseUnavailable`'s
 * owner, not once per request), and anything else is a fault: logged in full, answered with a
 * generic 500.
 */
export function registerErrorHandling(
  app: FastifyInstance,
  hooks: {
    families?: readonly ErrorFamily[];
    onRefused?: (error: OAuthError | ApiProblem) => void;
    onDatabaseUnavailable?: (error: Error) => void;
  } = {},
): void {
  const families = hooks.families ?? [];
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const oauth = isOAuthPath(request.url);
    if (error instanceof OAuthError || error instanceof ApiProblem) hooks.onRefused?.(error);
    if (error instanceof OAuthError) {
      if (error.options.internal) request.log.info({ reason: error.options.internal }, error.code);
      return sendOAuthError(reply, error);
    }
    if (isDatabaseUnavailable(error)) {
      hooks.onDatabaseUnavailable?.(error);
      return oauth
        ? sendOAuthError(reply, oauthErrors.temporarilyUnavailable(DATABASE_RETRY_AFTER_SECONDS))
        : sendApiError(reply, request.url, apiErrors.unavailable(DATABASE_RETRY_AFTER_SECONDS), families);
    }
    if (!oauth) return sendApiError(reply, request.url, asApiProblem(error, request), families);
    const known = requestError(error, request);
    if (known) {
      request.log.info({ code: error.code, reason: redactSecrets(error.message) }, 'rejected request');
      return sendOAuthError(reply, oauthErrors.invalidRequest(known.message, known.status));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendOAuthError(reply, oauthErrors.serverError());
  });

  app.setNotFoundHandler((request, reply) => {
    const oauth = isOAuthPath(request.url);
    // RFC 9110 §15.5.6: a known path asked with another method is 405, with the methods it answers.
    const allowed = HTTP_METHODS.filter((method) => app.findRoute({ method, url: request.url }));
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      const refusal = apiErrors.methodNotAllowed(request.method, request.url, allowed);
      return oauth ? sendOAuthError(reply, oauthErrors.invalidRequest(refusal.detail, 405)) : sendApiError(reply, request.url, refusal, families);
    }
    if (oauth) return sendOAuthError(reply, oauthErrors.invalidRequest('No such authorization server endpoint.', 404));
    return sendApiError(reply, request.url, apiErrors.routeNotFound(request.method, request.url), families);
  });
}

/**
 * What anything thrown on an API path means for the client, logged once: our own refusals as
 * they are, Fastify's request errors as 4xx, anything else a fault (logged in full, a generic 500).
 * Each API family renders the result in its own body.
 */
export function asApiProblem(error: FastifyError | ApiProblem, request: FastifyRequest): ApiProblem {
  if (error instanceof ApiProblem) {
    if (error.options.internal) request.log.info({ reason: error.options.internal }, error.code);
    return error;
  }
  const known = requestError(error, request);
  if (known) {
    request.log.info({ code: error.code, reason: redactSecrets(error.message) }, 'rejected request');
    return apiErrors.unreadableRequest(known.status, known.message);
  }
  request.log.error({ err: error }, 'unhandled error');
  return apiErrors.internal();
}

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Recognises the client's mistakes among Fastify's errors; undefined for a fault. */
function requestError(error: FastifyError, request: FastifyRequest): { status: 400 | 413 | 415; message: string } | undefined {
  if (error.validation) {
    const context = error.validationContext as 'body' | 'querystring' | 'params' | 'headers' | undefined;
    const schema = context ? (request.routeOptions.schema?.[context] as never) : undefined;
    const input = context === 'querystring' ? request.query : context ? request[context] : undefined;
    return { status: 400, message: validationMessage(error.validation, schema, input, context) };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: `Content-Type ${truncate(request.headers['content-type'] ?? '(none)')} is not accepted here.` };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: 'The request body is too large.' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, message: 'The request body could not be read.' };
  }
  const status = error.statusCode ?? 500;
  return status >= 400 && status < 500 ? { status: 400, message: 'The request could not be processed.' } : undefined;
}
