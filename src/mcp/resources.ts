import { McpError, type ListResourcesResult, type ReadResourceResult, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../access/caller.js';
import { ApiProblem } from '../errors.js';
import type { McpDeps } from './mcp-deps.js';
import { pageOf } from './tool.js';

/** MCP's code for a resource that cannot be found (the specification's -32002). */
const RESOURCE_NOT_FOUND = -32002;

const PLAN = /^results:\/\/tests\/([^/?#]{1,64})\/plan$/;
const TRANSCRIPT = /^results:\/\/sessions\/([^/?#]{1,64})\/transcript$/;

export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: 'results://tests/{testId}/plan',
    name: 'test-plan',
    title: 'Test plan',
    description: 'The plan of a test: its task groups and tasks (prompts, types, scales, choices), as imported.',
    mimeType: 'application/json',
  },
  {
    uriTemplate: 'results://sessions/{sessionId}/transcript',
    name: 'transcript',
    title: 'Session transcript',
    description: "A session's transcript as the WebVTT file the REST API serves (cues with times and voice tags).",
    mimeType: 'text/vtt',
  },
];

/** The plans of the tests the caller may see, a page at a time (transcripts are reached by template). */
export async function listResources(caller: Caller, deps: McpDeps, cursor: string | undefined): Promise<ListResourcesResult> {
  const tests = await deps.access.tests(caller);
  const page = pageOf('resources/list', '', tests, { cursor, limit: 100 });
  return {
    resources: page.items.map((t) => ({ uri: `results://tests/${t.id}/plan`, name: `plan-${t.id}`, title: `Test plan: ${t.title}`, mimeType: 'application/json' })),
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  };
}

/** One resource, resolved through ResourceAccess like any tool's; what the caller may not see is "not found", worded as REST words it. */
export async function readResource(caller: Caller, deps: McpDeps, uri: string): Promise<ReadResourceResult> {
  try {
    const plan = PLAN.exec(uri);
    if (plan) {
      const test = await deps.access.test(caller, plan[1]!, 'studies');
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(test.plan ?? null) }] };
    }
    const transcript = TRANSCRIPT.exec(uri);
    if (transcript) {
      const found = await deps.access.transcript(caller, transcript[1]!);
      return { contents: [{ uri, mimeType: 'text/vtt', text: found.vtt }] };
    }
  } catch (error) {
    if (error instanceof ApiProblem && error.status === 404) throw new McpError(RESOURCE_NOT_FOUND, error.detail, { uri });
    throw error;
  }
  throw new McpError(RESOURCE_NOT_FOUND, 'No resource has this URI: use results://tests/{testId}/plan or results://sessions/{sessionId}/transcript.', { uri: uri.slice(0, 200) });
}
