import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import type { Runtime } from '../../src/runtime.js';
import { DETAILS_PLAN, detailsInput, taskId } from '../helpers/details.js';
import { freePort } from '../helpers/net.js';
import { seedClient, seedWorkspace, storeActor as by } from '../helpers/seed.js';
import { startTestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';
import { userToken } from '../helpers/user-tokens.js';

/** Search relevance on a fixture with known answers, visibility in the query, and hostile queries. */

const cue = (start: string, end: string, text: string) => `${start} --> ${end}\n${text}\n`;

async function testWith(runtime: Runtime, workspaceId: string, vtt: string, answers: Record<number, Record<string, unknown>> = {}) {
  const testId = randomUUID();
  const sessionId = randomUUID();
  await runtime.store.directory.createTest({ id: testId, workspaceId, title: 'Shop', productType: 'THINK_OUT_LOUD', plan: DETAILS_PLAN }, by);
  const record = { sessionId, status: 'COMPLETE', startTime: '2026-11-01T10:00:00Z', finishTime: '2026-11-01T10:20:00Z', details: detailsInput(answers) };
  const parsed = parseSessionFile(JSON.stringify(record), 'ndjson', DETAILS_PLAN);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  await runtime.store.sessions.importSessions(testId, parsed.sessions, by);
  await runtime.store.transcripts.importTranscripts(testId, [{ sessionId, vtt }], by);
  return { testId, sessionId };
}

interface Hit {
  sessionId: string;
  testId: string;
  kind: string;
  taskId: string | null;
  startMs: number | null;
  speaker: string | null;
  snippet: string;
}

describe('search', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ port, env: { PUBLIC_URL: base, RATE_LIMIT_API: '100000' } });
  afterAll(() => t.close());
  const caller = await seedClient(t.runtime);
  const workspaceId = await seedWorkspace(t.runtime, [caller.email]);
  const shop = await testWith(
    t.runtime,
    workspaceId,
    'WEBVTT\n\n' +
      [
        cue('00:02:10.000', '00:02:12.000', '<v Participant>Where is the checkout button? Checkout button, checkout button!</v>'),
        cue('00:02:20.000', '00:02:29.000', '<v Moderator>Take your time and look at the whole page, the header, the footer, and the area near the checkout where a button may be.</v>'),
        cue('00:03:00.000', '00:03:02.000', '<v Participant>I clicked the wrong link.</v>'),
      ].join('\n'),
    { 13: { text: 'The checkout button was hard to find.' }, 14: { text: 'I expected free shipping.' } },
  );
  const other = await testWith(t.runtime, workspaceId, `WEBVTT\n\n${cue('00:00:01.000', '00:00:02.000', 'The checkout button is green.')}`);
  const foreign = await testWith(t.runtime, await seedWorkspace(t.runtime, [(await seedClient(t.runtime)).email]), `WEBVTT\n\n${cue('00:00:01.000', '00:00:02.000', 'checkout button checkout button')}`, {
    13: { text: 'checkout button' },
  });
  const token = await mintToken(t, caller);
  const get = async (query: Record<string, string>) => {
    const res = await fetch(`${t.url}/api/v2/search?${new URLSearchParams(query)}`, { headers: authHeaders(token) });
    return { status: res.status, body: (await res.json()) as { hits: Hit[]; query: string; meta: { hasMore: boolean }; detail?: string } };
  };

  it('finds every text with all the words, in the tests the caller may see only, the best first', async () => {
    const { status, body } = await get({ q: 'Checkout BUTTON' });
    expect(status).toBe(200);
    expect(body.query).toBe('checkout button');
    expect(body.hits).toHaveLength(4);
    expect(body.hits.some((h) => h.testId === foreign.testId || h.sessionId === foreign.sessionId)).toBe(false);
    expect(new Set(body.hits.map((h) => `${h.sessionId} ${h.kind} ${h.startMs}`))).toEqual(
      new Set([`${shop.sessionId} transcript 130000`, `${shop.sessionId} transcript 140000`, `${shop.sessionId} answer 130000`, `${other.sessionId} transcript 1000`]),
    );
    expect(body.hits[0]).toEqual({
      sessionId: shop.sessionId,
      testId: shop.testId,
      kind: 'transcript',
      taskId: taskId(13),
      startMs: 130_000,
      endMs: 132_000,
      speaker: 'Participant',
      snippet: expect.stringContaining('**checkout** **button**') as string,
    });
    const answer = body.hits.find((h) => h.kind === 'answer')!;
    expect(answer).toMatchObject({ taskId: taskId(13), speaker: null, snippet: expect.stringContaining('**checkout**') as string });
  });

  it('stems: "click" finds "clicked"', async () => {
    const { body } = await get({ q: 'click' });
    expect(body.hits.map((h) => h.snippet)).toEqual([expect.stringContaining('**clicked**')]);
  });

  it('within one test', async () => {
    const { body } = await get({ q: 'checkout button', testId: other.testId });
    expect(body.hits.map((h) => h.sessionId)).toEqual([other.sessionId]);
  });

  it('pages with limit and offset', async () => {
    const first = await get({ q: 'checkout button', limit: '3' });
    expect(first.body.hits).toHaveLength(3);
    expect(first.body.meta.hasMore).toBe(true);
    const second = await get({ q: 'checkout button', limit: '3', offset: '3' });
    expect(second.body.hits).toHaveLength(1);
    expect(second.body.meta.hasMore).toBe(false);
  });

  it('past the first 1,000 matches: the newest 1,000 first, then the older ones, every page a slice of one order', async () => {
    // 1,150 cues with the word, of different lengths (so BM25's ranks differ), the newest imported last.
    const stamp = (ms: number) => new Date(ms).toISOString().slice(11, 23);
    const cues = Array.from({ length: 1150 }, (_, i) => cue(stamp(i * 1000), stamp(i * 1000 + 500), `tierword ${'filler '.repeat(i % 7)}end`));
    const tiered = await testWith(t.runtime, workspaceId, `WEBVTT\n\n${cues.join('\n')}`);
    const page = async (offset: number, limit: number) => (await get({ q: 'tierword', testId: tiered.testId, offset: String(offset), limit: String(limit) })).body.hits;
    const all: Hit[] = [];
    for (let offset = 0; offset < 1200; offset += 100) all.push(...(await page(offset, 100)));
    const keys = all.map((h) => h.startMs);
    expect(new Set(keys).size).toBe(1150);
    // The first 1,000 hits are the 1,000 newest cues (the last imported: from 150 s on), the rest the 150 older ones.
    expect(keys.slice(0, 1000).every((ms) => ms! >= 150_000)).toBe(true);
    expect(keys.slice(1000).every((ms) => ms! < 150_000)).toBe(true);
    // A page across the boundary is the same slice of that order.
    expect((await page(990, 20)).map((h) => h.startMs)).toEqual(keys.slice(990, 1010));
  });

  it('a foreign test and a missing one: the same 404', async () => {
    const foreignAnswer = await get({ q: 'checkout', testId: foreign.testId });
    const missingAnswer = await get({ q: 'checkout', testId: randomUUID() });
    expect(foreignAnswer.status).toBe(404);
    expect(foreignAnswer).toEqual(missingAnswer);
  });

  it.each([
    ['FTS5 operators', 'checkout OR "x" NEAR(a b) NOT button'],
    ['column filters and prefixes', 'text:checkout* ^button'],
    ['tsquery operators', "checkout & !button | (x <-> y) :* '"],
    ['SQL', "'; DROP TABLE search_entries; --"],
    ['unbalanced quotes', '"checkout'],
  ])('%s are words or separators, never syntax: 200', async (_name, q) => {
    const { status } = await get({ q });
    expect(status).toBe(200);
  });

  it('operator words are searched as words: "NEAR" is a word like any other', async () => {
    const { body } = await get({ q: 'checkout NEAR' });
    expect(body.query).toBe('checkout near');
    expect(body.hits.map((h) => h.startMs)).toEqual([140_000]);
  });

  it('English stop words are left out, as PostgreSQL does: "the checkout button" finds what "checkout button" finds; "the" alone, nothing', async () => {
    const withStopWords = await get({ q: 'Where is the checkout button' });
    expect(withStopWords.body.query).toBe('checkout button');
    expect(withStopWords.body.hits).toEqual((await get({ q: 'checkout button' })).body.hits);
    const only = await get({ q: 'The I not' });
    expect(only.status).toBe(200);
    expect(only.body).toMatchObject({ query: '', hits: [], meta: { hasMore: false } });
  });

  it.each([
    ['no words', '?!* "" ()', /no words to search for/],
    ['too long', 'word '.repeat(41), /at most 200 characters/],
    ['too many words', Array.from({ length: 13 }, (_, i) => `w${i}`).join(' '), /at most 12 different words/],
    ['empty', '', /no words/],
  ])('%s: 400 naming the rule', async (_name, q, detail) => {
    const { status, body } = await get({ q });
    expect(status).toBe(400);
    expect(body.detail).toMatch(detail);
  });

  it('a query parameter the route does not take: 400 naming it', async () => {
    const { status, body } = await get({ q: 'checkout', testid: randomUUID() });
    expect(status).toBe(400);
    expect(body.detail).toBe('querystring has a field this route does not take: testid');
  });

  it('the MCP search tool answers as GET /api/v2/search, and refuses bad queries as tool errors', async () => {
    const client = new Client({ name: 'search-test', version: '1' });
    const mcpToken = await mintToken(t, caller, 'B', `${base}/mcp`);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${mcpToken}` } } }));
    const result = (await client.callTool({ name: 'search', arguments: { query: 'checkout button' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { hits: Hit[] }).hits).toEqual((await get({ q: 'checkout button' })).body.hits);
    const page = (await client.callTool({ name: 'search', arguments: { query: 'checkout button', limit: 3 } })) as CallToolResult;
    const next = (await client.callTool({ name: 'search', arguments: { query: 'checkout button', limit: 3, cursor: (page.structuredContent as { nextCursor: string }).nextCursor } })) as CallToolResult;
    expect((next.structuredContent as { hits: Hit[] }).hits).toHaveLength(1);
    for (const query of ['?!', 'x'.repeat(500)]) {
      const refused = (await client.callTool({ name: 'search', arguments: { query } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect((refused.content[0] as { text: string }).text).toMatch(/query/);
    }
    await client.close();
  });

  describe('a token narrowed to resource families (issue 34) finds only what the REST API would serve it', () => {
    const searchWith = async (token: string, query: Record<string, string> = {}) => {
      const res = await fetch(`${t.url}/api/v2/search?${new URLSearchParams({ q: 'checkout button', ...query })}`, { headers: authHeaders(token) });
      return { status: res.status, body: (await res.json()) as { hits: Hit[]; detail?: string } };
    };
    const toolSearch = async (scopes: string[], args: Record<string, unknown> = {}) => {
      const client = new Client({ name: 'narrowed', version: '1' });
      const token = await userToken(t, caller.email, scopes, `${base}/mcp`);
      await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      const result = (await client.callTool({ name: 'search', arguments: { query: 'checkout button', ...args } })) as CallToolResult;
      await client.close();
      return result;
    };
    const kindsOf = (hits: Hit[]) => new Set(hits.map((h) => h.kind));

    it.each([
      // An answer is served by GET /api/v3/sessionResults/{id} (sessions:read), a transcript by .../transcript (videos:read).
      ['sessions:read', ['answer']],
      ['videos:read', ['transcript']],
      ['sessions:read videos:read', ['answer', 'transcript']],
    ])('%s: across every test, and within one, on REST and over MCP', async (scope, kinds) => {
      const full = (await get({ q: 'checkout button' })).body.hits;
      const expected = full.filter((h) => kinds.includes(h.kind));
      expect(expected.length).toBeGreaterThan(0);
      const token = await userToken(t, caller.email, scope.split(' '));
      const across = await searchWith(token);
      expect(across.status).toBe(200);
      expect(across.body.hits).toEqual(expected);
      expect(kindsOf(across.body.hits)).toEqual(new Set(kinds));
      const within = await searchWith(token, { testId: shop.testId });
      expect(within.body.hits).toEqual(expected.filter((h) => h.testId === shop.testId));
      // The foreign test stays as hidden as a missing one.
      const [foreignAnswer, missingAnswer] = [await searchWith(token, { testId: foreign.testId }), await searchWith(token, { testId: randomUUID() })];
      expect(foreignAnswer.status).toBe(404);
      expect(foreignAnswer).toEqual(missingAnswer);

      const tool = await toolSearch(scope.split(' '));
      expect(tool.isError).toBeFalsy();
      expect((tool.structuredContent as { hits: Hit[] }).hits).toEqual(expected);
    });

    it('clips:read alone grants no searchable text: 403 insufficient scope on REST, a tool error over MCP', async () => {
      const refused = await searchWith(await userToken(t, caller.email, ['clips:read']));
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toContain('sessions:read');
      const tool = await toolSearch(['clips:read']);
      expect(tool.isError).toBe(true);
      expect((tool.content[0] as { text: string }).text).toContain('sessions:read');
    });
  });

  it('a transcript imported again replaces its entries, in the same transaction', async () => {
    await t.runtime.store.transcripts.importTranscripts(other.testId, [{ sessionId: other.sessionId, vtt: `WEBVTT\n\n${cue('00:00:01.000', '00:00:02.000', 'The basket is red.')}` }], by);
    expect((await get({ q: 'checkout button', testId: other.testId })).body.hits).toEqual([]);
    expect((await get({ q: 'basket', testId: other.testId })).body.hits).toHaveLength(1);
  });
});
