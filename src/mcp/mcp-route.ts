import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { EXTENSION } from '../docs/extension.js';
import { apiErrors } from '../errors.js';
import { BEARER_REALM } from '../http/error-handler.js';
import { apiResponses, problemResponse, wwwAuthenticate } from '../results/responses.js';
import type { McpDeps } from './mcp-deps.js';
import type { McpServerPool } from './mcp-server-pool.js';

/** A JSON-RPC message of MCP is small: tool arguments are ids, a cursor and a query. */
export const MCP_BODY_LIMIT = 64 * 1024;

const JsonRpcMessage = Type.Object(
  { jsonrpc: Type.Literal('2.0'), id: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Null()])) },
  { additionalProperties: true, title: 'JsonRpcMessage', description: 'A JSON-RPC 2.0 response (`result` or `error`).' },
);
const JsonRpcReply = Type.Union([JsonRpcMessage, Type.Array(JsonRpcMessage)], { title: 'JsonRpcReply' });

/** Problem details where the API guard or Fastify refused, JSON-RPC errors where the MCP transport did. */
function mcpResponses() {
  const base = apiResponses({ description: 'The JSON-RPC response to the request (MCP Streamable HTTP, JSON response mode).', schema: JsonRpcReply });
  const jsonRpcError = (description: string) => ({ description, content: { 'application/json': { schema: JsonRpcMessage } } });
  return {
    ...base,
    202: { description: 'Only notifications or responses were sent: accepted, no body.', type: 'null' },
    400: { ...base[400], content: { ...base[400].content, 'application/json': { schema: JsonRpcMessage } } },
    403: problemResponse(
      403,
      ['insufficient-scope', 'origin-refused'],
      `${base[403].description} Or the request carries an \`Origin\` that is neither BASE_URL's nor, on a server bound to loopback, a loopback one (DNS rebinding protection).`,
      wwwAuthenticate(false, `Bearer realm="${BEARER_REALM}", error="insufficient_scope"`),
      { title: 'McpForbiddenProblem' },
    ),
    406: jsonRpcError('The Accept header does not list both application/json and text/event-stream.'),
    413: problemResponse(413, ['payload-too-large'], `The body is larger than ${MCP_BODY_LIMIT / 1024} KiB.`, {}, { title: 'PayloadTooLargeProblem' }),
    415: jsonRpcError('The body is not application/json.'),
  };
}

const MCP_SUMMARY = 'MCP endpoint (Streamable HTTP)';

/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP, stateless (no session id, no
 * server-to-client stream), so any process behind any load balancer answers any request. The
 * API guard in front (its scope names the MCP resource) authenticates and rate-limits exactly
 * as on REST; the SDK's server answers the request for that caller only. GET and DELETE (the
 * optional stream and session end) are answered 405 after authentication, as the specification allows.
 */
export function registerMcpRoute(scope: FastifyInstance, deps: McpDeps): void {
  // The body is parsed below, where a parse error can be answered in JSON-RPC's words.
  // The MCP SDK (and zod under it, about 10 MB of heap) is loaded by the first /mcp request, not
  // at start-up: a process that serves no MCP client never holds it. A failed load is tried again.
  let pool: Promise<McpServerPool> | undefined;
  const servers = () =>
    (pool ??= Promise.all([import('./mcp-server-pool.js'), import('./mcp-server.js')]).then(
      ([{ McpServerPool }, { buildMcpServer }]) => new McpServerPool(() => buildMcpServer(deps)),
      (err: unknown) => {
        pool = undefined;
        throw err;
      },
    ));
  scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: MCP_BODY_LIMIT }, (_request, body, done) => done(null, body));
  scope.post(
    '/mcp',
    {
      schema: {
        summary: MCP_SUMMARY,
        description:
          'Extension. The Model Context Protocol (2025-11-25 and the earlier versions the official SDK negotiates) over ' +
          'Streamable HTTP in stateless JSON-response mode: read-only tools, resources and prompts over the results the ' +
          'caller may see, exactly as the REST API shows them. A token must be bound to this endpoint (`resource` = ' +
          '`BASE_URL/mcp`, RFC 8707); discovery starts at `/.well-known/oauth-protected-resource/mcp` (RFC 9728). See docs/MCP.md.',
        tags: [TAG.mcp],
        operationId: 'postMcp',
        security: API_SECURITY,
        response: mcpResponses(),
        ...EXTENSION,
      },
    },
    async (request, reply) => {
      let message: unknown;
      try {
        message = JSON.parse(request.body as string);
      } catch {
        return reply.code(400).type('application/json').send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not JSON.' } });
      }
      const response = await (await servers()).handle(webRequest(request), message, { caller: request.caller, log: request.log });
      reply.code(response.status);
      const type = response.headers.get('content-type');
      if (type) reply.type(type);
      return response.body === null ? reply.send() : reply.send(await response.text());
    },
  );
  // Stateless: no server-to-client stream (GET) and no session to end (DELETE). Answered here, in
  // this scope, rather than by the app's 405 for unknown methods, so that a browser page of an
  // allowed origin can read the answer (CORS headers) and carry on without the stream.
  for (const method of ['GET', 'DELETE'] as const) {
    // Not in the OpenAPI document: an operation that only ever refuses has no 2xx to describe (docs/MCP.md says it).
    scope.route({
      method,
      url: '/mcp',
      schema: { hide: true },
      handler: async (request, reply) => {
        reply.header('allow', 'POST');
        throw apiErrors.methodNotAllowed(request.method, request.url, ['POST']);
      },
    });
  }
}

/**
 * The headers the SDK's transport reads (content negotiation, protocol version, and the session
 * and resumption headers it refuses or ignores in stateless mode). The others, the bearer token
 * among them, are no business of the MCP handlers, and copying them cost per request.
 */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'] as const;

/**
 * What the transport reads of the request: its method and those headers (the body is given
 * parsed). The URL is a fixed one: the Host header is the client's to choose, and nothing reads it.
 */
function webRequest(request: FastifyRequest): Request {
  const headers: [string, string][] = [];
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers.push([name, value]);
    else if (Array.isArray(value)) for (const v of value) headers.push([name, v]);
  }
  return new Request('http://localhost/mcp', { method: request.method, headers });
}
