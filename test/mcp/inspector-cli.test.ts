import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { delimiter, dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TOOL_LIST } from '../../src/mcp/tools.js';
import { completedOnly, seed } from '../helpers/seed.js';
import { freePort } from '../helpers/net.js';
import { startTestApp } from '../helpers/test-app.js';
import { mintToken } from '../helpers/tokens.js';

/** The Inspector's command line (its `--cli` mode, the package's own bin), as a user runs it from a terminal. */
const INSPECTOR = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `mcp-inspector-cli --cli <url> --transport http [--header ...] <args>`. The bin starts its
 * client with the `node` on PATH: this one first, so the matrix's Node runs both. The client
 * finds its own package.json by testing `../package.json` against the working directory (1.0.3),
 * so it runs from its build directory, where that holds.
 */
function inspector(url: string, headers: string[], args: string[]): Promise<Run> {
  const argv = [INSPECTOR, '--cli', url, '--transport', 'http', ...headers.flatMap((h) => ['--header', h]), ...args];
  return new Promise((done) => {
    execFile(
      process.execPath,
      argv,
      { cwd: dirname(INSPECTOR), env: { PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '' }, timeout: 30_000 },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** What the CLI printed, having exited 0. */
const json = (run: Run): unknown => {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};

describe('@modelcontextprotocol/inspector-cli against /mcp', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ port, env: { PUBLIC_URL: base } });
  afterAll(() => t.close());
  const s = await seed(t.runtime, { sessions: 5 });
  const token = await mintToken(t, s, 'B', `${base}/mcp`);
  const call = (method: string, args: string[] = []) => inspector(`${t.url}/mcp`, [`Authorization: Bearer ${token}`], ['--method', method, ...args]);

  it('tools/list: every tool as the server describes it, read-only, with its schemas', async () => {
    const { tools } = json(await call('tools/list')) as { tools: { name: string; annotations: { readOnlyHint: boolean } }[] };
    expect(tools).toEqual(JSON.parse(JSON.stringify(TOOL_LIST)));
    expect(tools.map((tool) => tool.name)).toContain('search');
    for (const tool of tools) expect(tool, tool.name).toMatchObject({ annotations: { readOnlyHint: true }, inputSchema: { type: 'object' }, outputSchema: { type: 'object' } });
  });

  it('tools/call with --tool-arg: the answer the REST API gives, paged by the cursor it returns', async () => {
    const first = json(await call('tools/call', ['--tool-name', 'list_sessions', '--tool-arg', `testId=${s.testId}`, 'limit=2'])) as {
      isError?: boolean;
      structuredContent: { totalCount: number; sessions: { sessionId: string }[]; nextCursor: string };
    };
    expect(first.isError).toBeFalsy();
    const rest = (await (await fetch(`${t.url}/api/v2/sessionResults?testId=${s.testId}`, { headers: { authorization: `Bearer ${await mintToken(t, s)}` } })).json()) as {
      sessions: { sessionId: string }[];
    };
    expect(first.structuredContent.totalCount).toBe(completedOnly(s.sessions).length);
    expect(first.structuredContent.sessions.map((x) => x.sessionId)).toEqual(rest.sessions.slice(0, 2).map((x) => x.sessionId));
    const second = json(
      await call('tools/call', ['--tool-name', 'list_sessions', '--tool-arg', `testId=${s.testId}`, 'limit=2', `cursor=${first.structuredContent.nextCursor}`]),
    ) as { structuredContent: { sessions: { sessionId: string }[] } };
    expect(second.structuredContent.sessions.map((x) => x.sessionId)).toEqual(rest.sessions.slice(2, 4).map((x) => x.sessionId));
  });

  it('a foreign or missing id is a tool error in the REST wording, which the CLI prints as the result', async () => {
    const result = json(await call('tools/call', ['--tool-name', 'get_session', '--tool-arg', `sessionId=${randomUUID()}`])) as { isError: boolean; content: { text: string }[] };
    expect(result).toMatchObject({ isError: true, content: [{ text: 'Session not found' }] });
  });

  it('resources and prompts are listed too', async () => {
    const { resources } = json(await call('resources/list')) as { resources: { uri: string }[] };
    expect(resources.map((r) => r.uri)).toContain(`results://tests/${s.testId}/plan`);
    const { prompts } = json(await call('prompts/list')) as { prompts: { name: string }[] };
    expect(prompts.map((p) => p.name)).toEqual(['summarize_test_sessions', 'compare_qx_scores']);
  });

  it('without the Authorization header, or with a REST token, the CLI fails (exit 1) on the 401', async () => {
    for (const headers of [[], [`Authorization: Bearer ${await mintToken(t, s)}`]]) {
      const run = await inspector(`${t.url}/mcp`, headers, ['--method', 'tools/list']);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/401|Unauthorized/i);
    }
  });
});
