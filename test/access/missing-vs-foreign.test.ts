/**
 * Generated from the public listener's route table (buildApp's routes, as registered): every
 * route behind the API guard that takes an id, in its path or in its query (testId), answers a
 * foreign resource (it exists, in a workspace where the caller is not a member) exactly as a
 * missing one (a random id): the same 404, body and headers, but for the per-request ones. A
 * route added later is covered without a test of its own; one that takes a parameter the
 * fixture cannot supply fails here, saying what to add.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import type { Runtime } from '../../src/runtime.js';
import { DETAILS_PLAN, detailsInput, PARTICIPANT_A } from '../helpers/details.js';
import { seedClient, seedWorkspace, storeActor as by, type SeededClient } from '../helpers/seed.js';
import { startTestApp } from '../helpers/test-app.js';
import { authHeaders, requestToken } from '../helpers/tokens.js';

interface TableRoute {
  method: string;
  url: string;
  /** Registered where the API guard runs (its scope decorates requests with the caller). */
  guarded: boolean;
  pathParams: string[];
  queryParams: string[];
  requiredQuery: string[];
  takesBody: boolean;
}

/**
 * Routes outside the API guard that take a path parameter, none serving a caller's resource:
 * a signed link is the credential of the first two, the last serves the reference page's assets.
 */
const UNGUARDED_WITH_PARAMETERS = ['/media/:collection/:owner/:file', '/player/:kind/:id', '/docs/static/*'];

/** What differs from one request to the next whatever the answer. */
const PER_REQUEST_HEADERS = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'connection', 'keep-alive']);

/** Every id a route may take, by parameter name: a missing one (random, of the right shape). */
const MISSING: Record<string, () => string> = {
  workspaceUuid: randomUUID,
  testId: randomUUID,
  studyUuid: randomUUID,
  sessionId: randomUUID,
  sessionUuid: randomUUID,
  clipUuid: randomUUID,
  reelId: randomUUID,
  highlightReelToken: () => randomBytes(10).toString('hex'),
  webhookId: randomUUID,
  eventId: randomUUID,
};
type Ids = Record<keyof typeof MISSING, string>;
/** What a route that takes a body is sent (the smallest valid one), by method and path. */
const BODIES: Record<string, unknown> = {
  'PATCH /api/v2/webhooks/:webhookId': { disabled: false },
};

/** Required query parameters that are not ids: the same value for every request (the seeded transcript says "Hello"). */
const FIXED_QUERY: Record<string, string> = { q: 'hello' };
const supplied = (name: string) => name in MISSING || name in FIXED_QUERY;
/** Matched as sent (ids are taken in any case). */
const TOKENS = new Set(['highlightReelToken']);

const routes: TableRoute[] = [];
function collect(this: FastifyInstance, route: RouteOptions): void {
  const query = (route.schema?.querystring ?? {}) as { properties?: Record<string, unknown>; required?: string[] };
  for (const method of [route.method].flat()) {
    routes.push({
      method,
      url: route.url,
      guarded: this.hasRequestDecorator('caller'),
      pathParams: [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!),
      queryParams: Object.keys(query.properties ?? {}),
      requiredQuery: query.required ?? [],
      takesBody: route.schema?.body !== undefined,
    });
  }
}

const t = await startTestApp({ env: { RATE_LIMIT_API: '100000', RATE_LIMIT_TOKEN_CLIENT: '100000' }, onRoute: collect });
afterAll(() => t.close());

/**
 * A workspace with `members`, holding a test with a plan, a completed session with details,
 * its transcript and video (recorded without bytes: nothing here downloads it), a clip of the
 * video and a highlight reel of the clip: one resource of every kind, with the ids routes take.
 */
async function seedResources(runtime: Runtime, members: string[], subscriber: SeededClient): Promise<Ids> {
  const store = runtime.store;
  const workspaceId = await seedWorkspace(runtime, members);
  const testId = randomUUID();
  const sessionId = randomUUID();
  await store.directory.createTest({ id: testId, workspaceId, title: 'Checkout', productType: 'THINK_OUT_LOUD', plan: DETAILS_PLAN }, by);
  const record = { sessionId, status: 'COMPLETE', startTime: '2026-11-01T10:00:00Z', finishTime: '2026-11-01T10:20:00Z', details: detailsInput(PARTICIPANT_A) };
  const parsed = parseSessionFile(JSON.stringify(record), 'ndjson', DETAILS_PLAN);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  await store.sessions.importSessions(testId, parsed.sessions, by);
  await store.transcripts.importTranscripts(testId, [{ sessionId, vtt: 'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nHello.\n' }], by);
  await store.videos.saveVideo(
    { sessionId, objectKey: `videos/${sessionId}/v.mp4`, posterKey: null, contentSha256: 'c'.repeat(64), contentType: 'video/mp4', sizeBytes: 1, durationMs: 5000, width: 2, height: 2, hasAudio: false, regions: {} },
    by,
  );
  const clip = await store.clips.createClip({ sessionId, startMs: 0, endMs: 1000, name: 'Hesitation' }, by);
  const reel = await store.reels.createReel({ testId, name: 'Highlights', clipIds: [clip.id] }, by);
  const user = (await store.credentials.findUserByEmail(subscriber.email))!;
  const webhook = await store.webhooks.create({ userId: user.id, clientId: subscriber.clientId, url: 'https://hooks.example.com/in', events: ['session.completed'], secret: 'whsec_c2VjcmV0' }, by);
  const eventId = await store.webhooks.sendTest(webhook.id, by);
  return {
    workspaceUuid: workspaceId,
    testId,
    studyUuid: testId,
    sessionId,
    sessionUuid: sessionId,
    clipUuid: clip.id,
    reelId: reel.id,
    highlightReelToken: reel.token,
    webhookId: webhook.id,
    eventId,
  };
}

const client = await seedClient(t.runtime);
const stranger = await seedClient(t.runtime);
const own = await seedResources(t.runtime, [client.email], client);
const foreign = await seedResources(t.runtime, [stranger.email], stranger);
// Both guards' scopes: the Results API's and the webhooks extension's.
const token = ((await (await requestToken(t, client, { scope: 'studies:read webhooks:manage' })).json()) as { access_token: string }).access_token;

const idsOf = (route: TableRoute) => [...route.pathParams, ...route.queryParams.filter((name) => name in MISSING)];
const guardedWithIds = routes.filter((r) => r.guarded && idsOf(r).length > 0);
/** What the fixture can ask (the others fail the route table's check below, saying what to add). */
const bodyOf = (r: TableRoute) => BODIES[`${r.method} ${r.url}`];
const suppliable = guardedWithIds.filter((r) => (!r.takesBody || bodyOf(r) !== undefined) && [...r.pathParams, ...r.requiredQuery].every(supplied));

function requestUrl(route: TableRoute, ids: Partial<Ids>): string {
  const path = route.url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(ids[name]!));
  const query = new URLSearchParams([
    ...route.requiredQuery.filter((name) => name in FIXED_QUERY).map((name) => [name, FIXED_QUERY[name]!]),
    ...route.queryParams.filter((name) => ids[name] !== undefined).map((name) => [name, ids[name]!]),
  ]);
  return `${t.url}${path}${query.size > 0 ? `?${query}` : ''}`;
}

async function answer(route: TableRoute, ids: Partial<Ids>) {
  const body = bodyOf(route);
  const res = await fetch(requestUrl(route, ids), {
    method: route.method,
    headers: { ...authHeaders(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!PER_REQUEST_HEADERS.has(name)) headers[name] = value;
  });
  return { status: res.status, headers, body: await res.text() };
}

/** Each id of the route from `pick`, the others the caller's own. */
const withIds = (route: TableRoute, pick: (name: string) => string | undefined): Partial<Ids> =>
  Object.fromEntries(idsOf(route).map((name) => [name, pick(name) ?? own[name]!]));

describe('the route table', () => {
  it('has the API guard\'s routes, several of them taking ids', () => {
    expect(guardedWithIds.length).toBeGreaterThan(20);
  });

  it('every id a guarded route takes can be supplied by this test\'s fixture', () => {
    const unsupplied = routes
      .filter((r) => r.guarded)
      .flatMap((r) => {
        const unknown = [...r.pathParams, ...r.requiredQuery].filter((name) => !supplied(name));
        const problems = unknown.map((name) => `${r.method} ${r.url}: no value for "${name}"`);
        if (r.takesBody && idsOf(r).length > 0 && bodyOf(r) === undefined) problems.push(`${r.method} ${r.url}: takes a body: add the smallest valid one to BODIES`);
        return problems;
      });
    if (unsupplied.length > 0) {
      expect.fail(
        `${unsupplied.join('\n')}\nTeach test/access/missing-vs-foreign.test.ts the new parameter: add it to MISSING (a random ` +
          'value of its shape) and to what seedResources() returns (the id of a resource of that kind), so the route is checked ' +
          'for answering a foreign resource as a missing one.',
      );
    }
  });

  it('every route outside the API guard that takes a path parameter is known to serve no caller\'s resource', () => {
    const outside = routes.filter((r) => !r.guarded && (r.pathParams.length > 0 || r.url.includes('*'))).map((r) => r.url);
    expect([...new Set(outside)].sort()).toEqual([...UNGUARDED_WITH_PARAMETERS].sort());
  });
});

describe.each(suppliable.map((r) => [`${r.method} ${r.url}`, r] as const))('%s', (_name, route) => {
  const ids = idsOf(route);
  const safe = route.method === 'GET' || route.method === 'HEAD';

  it.runIf(safe)('serves the caller\'s own resource, its ids sent in upper case', async () => {
    const shouted = withIds(route, (name) => (TOKENS.has(name) ? undefined : own[name]!.toUpperCase()));
    const res = await answer(route, shouted);
    expect(res.status, res.body).toBe(200);
  });

  // Every id foreign, then (where there are several) one at a time under the caller's own others.
  const variants = ids.length > 1 ? [ids, ...ids.map((name) => [name])] : [ids];
  it.each(variants.map((names) => [names.join(' and '), names] as const))('a foreign %s answers as a missing one: 404', async (_which, names) => {
    const chosen = new Set<string>(names);
    const foreignAnswer = await answer(route, withIds(route, (name) => (chosen.has(name) ? foreign[name] : undefined)));
    const missingAnswer = await answer(route, withIds(route, (name) => (chosen.has(name) ? MISSING[name]!() : undefined)));
    expect(foreignAnswer.status, foreignAnswer.body).toBe(404);
    expect(foreignAnswer).toEqual(missingAnswer);
  });
});
