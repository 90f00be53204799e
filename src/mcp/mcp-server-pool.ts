import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { authInfoFor, type McpRequestContext } from './mcp-server.js';

/** Idle servers kept per process: more than the requests a process has in flight at once, usually. */
const MAX_IDLE = 64;

const initializes = (message: unknown): boolean => (Array.isArray(message) ? message.some(isInitializeRequest) : isInitializeRequest(message));

/**
 * Serves each MCP request with an SDK server connected to a new stateless transport for that
 * request only, closed when it is answered. Building a server (its handlers, the SDK's schemas)
 * cost about as much as the rest of the call, so closed servers are kept for the next request:
 * a server is connected to one transport at a time (the SDK refuses a second), and closing
 * clears what the SDK kept of the request. `initialize` is the one request whose answer leaves
 * something on the server (the client's capabilities and name): that server is dropped, not kept.
 * Nothing is shared between processes.
 */
export class McpServerPool {
  private readonly idle: Server[] = [];

  constructor(private readonly build: () => Server) {}

  /** The transport's response to one HTTP request whose body was `message` (parsed JSON). */
  async handle(request: Request, message: unknown, context: McpRequestContext): Promise<Response> {
    const server = this.idle.pop() ?? this.build();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    let response: Response;
    try {
      await server.connect(transport);
      response = await transport.handleRequest(request, { parsedBody: message, authInfo: authInfoFor(context) });
    } catch (error) {
      this.release(server, false);
      throw error;
    }
    // Closed once the SDK has done with the request: its bookkeeping ends a few promise turns
    // after the response is ready, and closing before that would abort the answered request's
    // signal (a DOMException per request).
    setImmediate(() => this.release(server, !initializes(message)));
    return response;
  }

  private release(server: Server, keep: boolean): void {
    // Closing a stateless transport does not fail; if it did, the server is dropped, not kept.
    server.close().then(
      () => {
        if (keep && this.idle.length < MAX_IDLE) this.idle.push(server);
      },
      () => undefined,
    );
  }
}
