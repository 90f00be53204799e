import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import type { Runtime } from '../../src/runtime.js';
import { DETAILS_PLAN, detailsInput, PARTICIPANT_A } from '../helpers/details.js';
import { freePort } from '../helpers/net.js';
import { seedClient, seedWorkspace, storeActor as by } from '../helpers/seed.js';
import { startTestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';

/**
 * Every tool against the REST operation it wraps, on the same data; every id-taking tool with a
 * foreign and a missing id (the same tool error, in REST's words); bad input as tool errors.
 */

const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:02.500\n<v Participant>I would click <b>here</b>.</v>\n\n00:00:03.000 --> 00:00:04.000\n<v Moderator>Why?</v>\n';

async function seedResources(runtime: Runtime, members: string[]) {
  const store = runtime.store;
  const workspaceId = await seedWorkspace(runtime, members);
  const testId = randomUUID();
  const sessionId = randomUUID();
  await store.directory.createTest({ id: testId, workspaceId, title: 'Checkout', productType: 'THINK_OUT_LOUD', plan: DETAILS_PLAN }, by);
  const records = [
    { sessionId, status: 'COMPLETE', startTime: '2026-11-01T10:00:00Z', finishTime: '2026-11-01T10:20:00Z', details: detailsInput(PARTICIPANT_A) },
    { sessionId: randomUUID(), status: 'COMPLETE', startTime: '2026-11-01T09:00:00Z', finishTime: '2026-11-01T09:20:00Z' },
    { sessionId: randomUUID(), status: 'COMPLETE', startTime: '2026-11-01T08:00:00Z', finishTime: '2026-11-01T08:20:00Z' },
  ];
  const parsed = parseSessionFile(records.map((r) => JSON.stringify(r)).join('\n'), 'ndjson', DETAILS_PLAN);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  await store.sessions.importSessions(testId, parsed.sessions, by);
  await store.transcripts.importTranscripts(testId, [{ sessionId, vtt: VTT }], by);
  await store.videos.saveVideo(
    { sessionId, objectKey: `videos/${sessionId}/v.mp4`, posterKey: null, contentSha256: 'c'.repeat(64), contentType: 'video/mp4', sizeBytes: 1, durationMs: 5000, width: 2, height: 2, hasAudio: false, regions: {} },
    by,
  );
  const clip = await store.clips.createClip({ sessionId, startMs: 0, endMs: 1000, name: 'Hesitation' }, by);
  await store.reels.createReel({ testId, name: 'Highlights', clipIds: [clip.id] }, by);
  return { workspaceId, testId, sessionId };
}

describe('MCP tools', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ port, env: { PUBLIC_URL: base, RATE_LIMIT_API: '100000' } });
  afterAll(() => t.close());
  const caller = await seedClient(t.runtime);
  const own = await seedResources(t.runtime, [caller.email]);
  const foreign = await seedResources(t.runtime, [(await seedClient(t.runtime)).email]);
  const missing = { workspaceId: randomUUID(), testId: randomUUID(), sessionId: randomUUID() };
  const restToken = await mintToken(t, caller);
  const mcpToken = await mintToken(t, caller, 'B', `${base}/mcp`);
  const client = new Client({ name: 'tools-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${mcpToken}` } } }));
  afterAll(() => client.close());

  const rest = async (path: string) => {
    const res = await fetch(`${t.url}${path}`, { headers: authHeaders(restToken) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { detail?: string; errorMessage?: string } };
  };
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const structured = async (name: string, args: Record<string, unknown>) => {
    const result = await call(name, args);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.content[0]).toMatchObject({ type: 'text' });
    return result.structuredContent as Record<string, unknown>;
  };

  describe('each tool answers what REST answers', () => {
    it('list_workspaces = GET /usertesting/api/v1/workspaces', async () => {
      const out = await structured('list_workspaces', {});
      expect(out.workspaces).toEqual((await rest('/usertesting/api/v1/workspaces')).body);
    });

    it('list_tests = GET /usertesting/api/v1/workspaces/{id}, each entry without its listing cursor', async () => {
      const listing = (await rest(`/usertesting/api/v1/workspaces/${own.workspaceId}`)).body as unknown as Record<string, unknown>[];
      const withoutCursor = listing.map(({ cursor: _c, ...entry }) => entry);
      expect((await structured('list_tests', { workspaceId: own.workspaceId })).tests).toEqual(withoutCursor);
      expect((await structured('list_tests', {})).tests).toEqual(withoutCursor);
    });

    it('list_sessions = GET /api/v2/sessionResults, page by page', async () => {
      const page = (await rest(`/api/v2/sessionResults?testId=${own.testId}&limit=2&offset=0`)).body as { sessions: unknown[]; meta: { pagination: { totalCount: number } } };
      const first = await structured('list_sessions', { testId: own.testId, limit: 2 });
      expect(first.sessions).toEqual(page.sessions);
      expect(first.totalCount).toBe(3);
      const next = (await rest(`/api/v2/sessionResults?testId=${own.testId}&limit=2&offset=2`)).body as { sessions: unknown[] };
      const second = await structured('list_sessions', { testId: own.testId, limit: 2, cursor: first.nextCursor });
      expect(second.sessions).toEqual(next.sessions);
      expect(second.nextCursor).toBeUndefined();
    });

    it('get_session = GET /api/v3/sessionResults/{id}', async () => {
      expect(await structured('get_session', { sessionId: own.sessionId.toUpperCase() })).toEqual((await rest(`/api/v3/sessionResults/${own.sessionId}`)).body);
    });

    it('get_qx_scores = GET /api/v2/testResults/{id}/qxScores', async () => {
      expect(await structured('get_qx_scores', { testId: own.testId })).toEqual((await rest(`/api/v2/testResults/${own.testId}/qxScores`)).body);
    });

    it('get_transcript: the cues of GET …/transcript, with times and speakers, as plain text', async () => {
      const out = await structured('get_transcript', { sessionId: own.sessionId });
      expect(out).toEqual({
        sessionId: own.sessionId,
        cueCount: 2,
        cues: [
          { startMs: 1000, endMs: 2500, speaker: 'Participant', text: 'I would click here.' },
          { startMs: 3000, endMs: 4000, speaker: 'Moderator', text: 'Why?' },
        ],
      });
      const text = ((await call('get_transcript', { sessionId: own.sessionId })).content[0] as { text: string }).text;
      expect(text).toBe('[0:01] Participant: I would click here.\n[0:03] Moderator: Why?');
      const page = await structured('get_transcript', { sessionId: own.sessionId, limit: 1 });
      expect(await structured('get_transcript', { sessionId: own.sessionId, limit: 1, cursor: page.nextCursor })).toMatchObject({ cues: [{ text: 'Why?' }] });
    });

    it('list_clips = GET /api/v2/sessionResults/{id}/clips', async () => {
      const out = await structured('list_clips', { sessionId: own.sessionId });
      const body = (await rest(`/api/v2/sessionResults/${own.sessionId}/clips`)).body;
      expect({ ...out, total: undefined }).toEqual({ ...body, total: undefined });
      expect(out.total).toBe(1);
    });

    it('list_highlight_reels = GET /api/v2/testResults/{id}/highlightreels', async () => {
      const out = await structured('list_highlight_reels', { testId: own.testId });
      const body = (await rest(`/api/v2/testResults/${own.testId}/highlightreels`)).body;
      expect({ ...out, total: undefined }).toEqual({ ...body, total: undefined });
    });

    it('get_video_link: the answer of GET …/videoDownloadUrl, a link that opens the video', async () => {
      const out = (await structured('get_video_link', { sessionId: own.sessionId })) as { sessionId: string; videoUrl: string; expiresAt: string };
      const body = (await rest(`/api/v2/sessionResults/${own.sessionId}/videoDownloadUrl`)).body;
      expect(Object.keys(out).sort()).toEqual(Object.keys(body).sort());
      expect(out.sessionId).toBe(body.sessionId);
      expect(new URL(out.videoUrl).pathname).toBe(new URL(body.videoUrl as string).pathname);
    });
  });

  const idTools: [string, (ids: { workspaceId: string; testId: string; sessionId: string }) => Record<string, unknown>, string][] = [
    ['list_tests', (ids) => ({ workspaceId: ids.workspaceId }), `/usertesting/api/v1/workspaces/`],
    ['list_sessions', (ids) => ({ testId: ids.testId }), `/api/v2/sessionResults?testId=`],
    ['get_session', (ids) => ({ sessionId: ids.sessionId }), `/api/v3/sessionResults/`],
    ['get_transcript', (ids) => ({ sessionId: ids.sessionId }), `/api/v2/sessionResults/{}/transcript`],
    ['get_qx_scores', (ids) => ({ testId: ids.testId }), `/api/v2/testResults/{}/qxScores`],
    ['list_clips', (ids) => ({ sessionId: ids.sessionId }), `/api/v2/sessionResults/{}/clips`],
    ['list_highlight_reels', (ids) => ({ testId: ids.testId }), `/api/v2/testResults/{}/highlightreels`],
    ['get_video_link', (ids) => ({ sessionId: ids.sessionId }), `/api/v2/sessionResults/{}/videoDownloadUrl`],
  ];

  describe.each(idTools)('%s: a foreign id answers as a missing one, in REST words', (name, args, path) => {
    it('the same tool error, no data', async () => {
      const id = (ids: typeof own) => Object.values(args(ids))[0] as string;
      const restPath = (ids: typeof own) => (path.includes('{}') ? path.replace('{}', id(ids)) : `${path}${id(ids)}`);
      const foreignResult = await call(name, args(foreign));
      const missingResult = await call(name, args(missing));
      expect(foreignResult).toEqual(missingResult);
      expect(foreignResult.isError).toBe(true);
      expect(foreignResult.structuredContent).toBeUndefined();
      const refused = await rest(restPath(foreign));
      expect(refused.status).toBe(404);
      expect((foreignResult.content[0] as { text: string }).text).toBe(refused.body.detail ?? refused.body.errorMessage);
    });
  });

  describe('bad input is a tool error, never a protocol error or a 5xx', () => {
    it.each([
      ['an unknown argument', 'list_sessions', { testId: randomUUID(), testID: 'x' }, /testID is not an argument of list_sessions/],
      ['a missing argument', 'get_session', {}, /sessionId/],
      ['a wrong type', 'list_sessions', { testId: 42 }, /testId: Expected string/],
      ['a limit out of range', 'list_sessions', { testId: randomUUID(), limit: 1000 }, /limit/],
      ['a huge id', 'get_session', { sessionId: 'a'.repeat(30_000) }, /sessionId/],
      ['a cursor that was never issued', 'list_workspaces', { cursor: 'bm9wZQ' }, /cursor is not one this tool issued/],
    ])('%s', async (_name, tool, args, message) => {
      const result = await call(tool, args);
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toMatch(message);
    });

    it("a cursor of another test's listing", async () => {
      const first = await structured('list_sessions', { testId: own.testId, limit: 1 });
      const result = await call('list_sessions', { testId: foreign.testId, cursor: first.nextCursor });
      expect(result.isError).toBe(true);
    });

    it('an unknown tool is the protocol\'s invalid-params error', async () => {
      await expect(client.callTool({ name: 'drop_tables', arguments: {} })).rejects.toThrow(/No tool is named drop_tables/);
    });

    it('a body that is not JSON: 400 with a JSON-RPC parse error', async () => {
      const res = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":',
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    });

    it('a body over 64 KiB: 413', async () => {
      const res = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(70_000) } }),
      });
      expect(res.status).toBe(413);
    });
  });

  describe('resources and prompts', () => {
    it('lists the visible tests\' plans and both templates; reads a plan and a transcript', async () => {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual([`results://tests/${own.testId}/plan`]);
      expect((await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).toEqual([
        'results://tests/{testId}/plan',
        'results://sessions/{sessionId}/transcript',
      ]);
      const plan = await client.readResource({ uri: `results://tests/${own.testId}/plan` });
      expect(JSON.parse((plan.contents[0] as { text: string }).text)).toEqual(DETAILS_PLAN);
      const transcript = await client.readResource({ uri: `results://sessions/${own.sessionId}/transcript` });
      expect(transcript.contents[0]).toMatchObject({ mimeType: 'text/vtt', text: VTT });
    });

    it('a foreign or missing resource: the same not-found error', async () => {
      for (const uri of [`results://tests/${foreign.testId}/plan`, `results://tests/${missing.testId}/plan`]) {
        await expect(client.readResource({ uri })).rejects.toThrow(/Test not found/);
      }
      for (const uri of [`results://sessions/${foreign.sessionId}/transcript`, `results://sessions/${missing.sessionId}/transcript`]) {
        await expect(client.readResource({ uri })).rejects.toThrow(/Transcript not found/);
      }
    });

    it('two prompts, each naming the tools to use', async () => {
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['summarize_test_sessions', 'compare_qx_scores']);
      const summary = await client.getPrompt({ name: 'summarize_test_sessions', arguments: { testId: own.testId } });
      expect((summary.messages[0]!.content as { text: string }).text).toContain(`list_sessions`);
      const compare = await client.getPrompt({ name: 'compare_qx_scores', arguments: { testIds: `${own.testId}, ${foreign.testId}` } });
      expect((compare.messages[0]!.content as { text: string }).text).toContain('get_qx_scores');
      await expect(client.getPrompt({ name: 'compare_qx_scores', arguments: { testIds: own.testId } })).rejects.toThrow(/2 to 20 test ids/);
    });
  });

  describe('per request, as on REST', () => {
    it('a member removed from the workspace is refused on the next call', async () => {
      const other = await seedClient(t.runtime);
      const ids = await seedResources(t.runtime, [other.email]);
      const otherClient = new Client({ name: 'removed', version: '1' });
      const token = await mintToken(t, other, 'B', `${base}/mcp`);
      await otherClient.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      expect((await otherClient.callTool({ name: 'get_session', arguments: { sessionId: ids.sessionId } })).isError).toBeFalsy();
      await t.runtime.store.directory.removeMember(ids.workspaceId, other.email, by);
      const refused = (await otherClient.callTool({ name: 'get_session', arguments: { sessionId: ids.sessionId } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect((refused.content[0] as { text: string }).text).toBe('Session not found');
      await otherClient.close();
    });

    it('a revoked credential is refused with 401 on the next request', async () => {
      const other = await seedClient(t.runtime);
      const token = await mintToken(t, other, 'B', `${base}/mcp`);
      const post = () =>
        fetch(`${t.url}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
      expect((await post()).status).toBe(200);
      await t.runtime.store.credentials.revokeCredential(other.clientId, by);
      const res = await post();
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('/.well-known/oauth-protected-resource/mcp');
    });

    it('carries the REST rate-limit headers', async () => {
      const res = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.headers.get('x-ratelimit-limit')).toBe('100000');
    });
  });
});
