import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TObject } from '@sinclair/typebox';
import type { FastifyBaseLogger } from 'fastify';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../access/caller.js';
import { ApiProblem, apiErrors } from '../errors.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../observability/database-unavailable.js';
import type { McpDeps } from './mcp-deps.js';
import { ToolInputError, type McpTool } from './tool.js';
import { getQxScores } from './tools/get-qx-scores.js';
import { getSession } from './tools/get-session.js';
import { getTranscript } from './tools/get-transcript.js';
import { getVideoLink } from './tools/get-video-link.js';
import { listClips } from './tools/list-clips.js';
import { listHighlightReels } from './tools/list-highlight-reels.js';
import { listSessions } from './tools/list-sessions.js';
import { listTests } from './tools/list-tests.js';
import { listWorkspaces } from './tools/list-workspaces.js';
import { searchTool } from './tools/search.js';

/** Every tool, in the order a client lists them: from workspaces down to one session's media. */
export const TOOLS: readonly McpTool[] = [
  listWorkspaces,
  listTests,
  listSessions,
  getSession,
  getTranscript,
  getQxScores,
  listClips,
  listHighlightReels,
  getVideoLink,
  searchTool,
];

const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));

/** Nothing unknown in a tool's arguments: a misspelt name is reported, not ignored. */
const closed = (schema: TObject): TObject => ({ ...schema, additionalProperties: false });

/** The tools as tools/list describes them (computed once: they never change). */
export const TOOL_LIST: Tool[] = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: closed(tool.input) as Tool['inputSchema'],
  outputSchema: tool.output as Tool['outputSchema'],
  annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
}));

const checks = new Map<string, TypeCheck<TObject>>();
/** Each tool's input check, compiled on its first call. */
function inputCheck(tool: McpTool): TypeCheck<TObject> {
  let check = checks.get(tool.name);
  if (!check) checks.set(tool.name, (check = TypeCompiler.Compile(closed(tool.input))));
  return check;
}

/** The first thing wrong with a tool's arguments, in words, or undefined when they are good. */
function inputProblem(tool: McpTool, args: unknown): string | undefined {
  const check = inputCheck(tool);
  if (check.Check(args)) return undefined;
  const first = check.Errors(args).First();
  if (!first) return 'the arguments do not match the input schema';
  const where = first.path === '' ? 'arguments' : first.path.slice(1).replaceAll('/', '.');
  return first.message.startsWith('Unexpected property') ? `${where} is not an argument of ${tool.name}` : `${where}: ${first.message}`;
}

const toolError = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/**
 * Calls a tool for a caller. Whatever the caller may not see, or sent wrong, is a tool error
 * (isError, with the REST API's wording), so the model can read it and correct itself; never
 * data, never a protocol error. Undefined: no such tool (the protocol's own error).
 */
export async function callTool(name: string, args: unknown, caller: Caller, deps: McpDeps, log: FastifyBaseLogger): Promise<CallToolResult | undefined> {
  const tool = byName.get(name);
  if (!tool) return undefined;
  const problem = inputProblem(tool, args ?? {});
  if (problem) return toolError(`Invalid arguments: ${problem}.`);
  try {
    const output = await tool.run(caller, (args ?? {}) as never, deps);
    return { content: [{ type: 'text', text: tool.render(output) }], structuredContent: output as Record<string, unknown> };
  } catch (error) {
    if (error instanceof ToolInputError) return toolError(`Invalid arguments: ${error.message}`);
    if (error instanceof ApiProblem) {
      if (error.options.internal) log.info({ tool: name, reason: error.options.internal }, error.code);
      return toolError(error.detail);
    }
    if (isDatabaseUnavailable(error)) return toolError(apiErrors.unavailable(DATABASE_RETRY_AFTER_SECONDS).detail);
    log.error({ err: error, tool: name }, 'tool failed');
    return toolError(apiErrors.internal().detail);
  }
}
