import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiProblem, OAuthError, apiErrors, oauthErrors } from '../errors.js';
import { errorFamilyOf, isOAuthPath, oauthErrorBody, sendApiError, sendOAuthError, type ErrorFamily } from './error-handler.js';

/**
 * Requests refused before any route sees them still get an answer in the documented shape of
 * their path's family, never Fastify's or Node's own JSON.
 */

/** The router's refusals: a path that is not valid percent-encoding, a path segment over the limit. */
export const frameworkErrorAnswer =
  (families: readonly ErrorFamily[]) =>
  (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void =>
    answerFrameworkError(error, request, reply, families);

function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, families: readonly ErrorFamily[]): void {
  // Refused before routing, so before the onRequest hook that echoes the id.
  reply.header('x-request-id', request.id);
  const problem =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? apiErrors.malformedRequest('A path segment is longer than 200 characters.', error.code)
      : error.code === 'FST_ERR_BAD_URL'
        ? apiErrors.malformedRequest('The request path is not valid percent-encoding.', error.code)
        : undefined;
  if (!problem) {
    request.log.error({ err: error }, 'unhandled framework error');
    void (isOAuthPath(request.url) ? sendOAuthError(reply, oauthErrors.serverError()) : sendApiError(reply, request.url, apiErrors.internal(), families));
    return;
  }
  request.log.info({ code: error.code }, 'rejected request');
  void (isOAuthPath(request.url) ? sendOAuthError(reply, asOAuthError(problem)) : sendApiError(reply, request.url, problem, families));
}

/**
 * Node's HTTP parser's refusals (a control character in a header, a malformed request line
 * or chunk, headers over 16 KiB, a request too slow to arrive): no request object exists, so
 * the answer is written to the socket, and the connection closed. The family is read from the
 * request line when the parser got that far.
 */
export const unparsedRequestAnswer =
  (families: readonly ErrorFamily[]) =>
  (error: ConnectionError, socket: Socket): void =>
    answerUnparsedRequest(error, socket, families);

function answerUnparsedRequest(error: ConnectionError, socket: Socket, families: readonly ErrorFamily[]): void {
  // A reset connection has no one to answer (as in Fastify's default handler).
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? apiErrors.headersTooLarge()
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? apiErrors.requestTimeout()
        : apiErrors.malformedRequest('The request is not valid HTTP/1.1.', error.code);
  // Node sets rawPacket to a Buffer (Fastify's typing says otherwise).
  const raw: unknown = error.rawPacket;
  const requestLine = Buffer.isBuffer(raw) ? raw.subarray(0, 512).toString('latin1').split('\r\n', 1)[0]! : '';
  const path = /^[A-Z]+ (\S+)/.exec(requestLine)?.[1] ?? '';
  const family = errorFamilyOf(families, path);
  const [type, body] = isOAuthPath(path)
    ? ['application/json; charset=utf-8', JSON.stringify(oauthErrorBody(asOAuthError(problem)))]
    : [family.contentType, JSON.stringify(family.body(problem))];
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
        `Content-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        'Cache-Control: no-store\r\nConnection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}

/** The same refusal for an /oauth2/ path: RFC 6749 §5.2 invalid_request with the precise status. */
const asOAuthError = (problem: ApiProblem): OAuthError => oauthErrors.invalidRequest(problem.detail, problem.status);
