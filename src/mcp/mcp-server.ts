import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '../access/caller.js';
import { PACKAGE_VERSION } from '../version.js';
import type { McpDeps } from './mcp-deps.js';
import { getPrompt, PROMPTS } from './prompts.js';
import { listResources, readResource, RESOURCE_TEMPLATES } from './resources.js';
import { callTool, TOOL_LIST } from './tools.js';

const INSTRUCTIONS =
  'Research results of the tests you may see (as the REST API shows them to the same credential): workspaces, tests, ' +
  'completed sessions, their answers, transcripts, QXscores, clips, highlight reels and video links. Start with ' +
  'list_tests (or search for what participants said), then open a session with get_session or get_transcript. ' +
  'Listings are paged: pass nextCursor back as cursor.';

/**
 * The server never asks the client for anything (no elicitation), so nothing is validated
 * against a client's schema; this stands in for the SDK's default, which builds an Ajv
 * instance per server.
 */
const NO_CLIENT_SCHEMAS: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'this server validates no client schema' }),
};

/** Who a message is answered for, as the API guard authenticated the HTTP request that carried it. */
export interface McpRequestContext {
  caller: Caller;
  log: FastifyBaseLogger;
}

/**
 * The SDK hands each handler the `authInfo` its transport was given for the HTTP request (per
 * message, whatever else the server serves), so one server's handlers serve any caller. The
 * token itself is not passed on: the API guard verified it, and handlers need only the caller.
 */
export const authInfoFor = (context: McpRequestContext): AuthInfo => ({ token: '', clientId: context.caller.clientId, scopes: [], extra: { context } });

function contextOf(extra: { authInfo?: AuthInfo | undefined }): McpRequestContext {
  const context = extra.authInfo?.extra?.['context'] as McpRequestContext | undefined;
  // Unreachable through the route, which passes authInfo with every request: refuse rather than guess a caller.
  if (!context) throw new McpError(ErrorCode.InternalError, 'No caller for this request.');
  return context;
}

/**
 * An MCP server with every handler registered, for any caller (see authInfoFor): stateless,
 * it holds nothing of a request once its transport is closed (see McpServerPool). The caller
 * was authenticated by the API guard; every handler resolves what it reads through ResourceAccess.
 */
export function buildMcpServer(deps: McpDeps): Server {
  const server = new Server(
    { name: 'results-api', title: 'Results API', version: PACKAGE_VERSION },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: NO_CLIENT_SCHEMAS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LIST }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { caller, log } = contextOf(extra);
    const result = await callTool(request.params.name, request.params.arguments, caller, deps, log);
    if (!result) throw new McpError(ErrorCode.InvalidParams, `No tool is named ${request.params.name.slice(0, 64)}.`);
    return result;
  });
  server.setRequestHandler(ListResourcesRequestSchema, (request, extra) => listResources(contextOf(extra).caller, deps, request.params?.cursor));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => readResource(contextOf(extra).caller, deps, request.params.uri));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => getPrompt(request.params.name, request.params.arguments));
  return server;
}
