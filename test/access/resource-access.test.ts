/**
 * ResourceAccess itself, as the REST routes, and later MCP tools and webhook deliveries, call
 * it: the listings of what a caller may see, one error for foreign and missing alike at every
 * resolver, and the per-family seam for narrowed tokens (issue 34).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { Caller, ResourceFamily } from '../../src/access/caller.js';
import type { ResourceAccess } from '../../src/access/resource-access.js';
import { ManualClock } from '../../src/clock.js';
import { ApiProblem } from '../../src/errors.js';
import { makeSessions, seedClient, seedTest, seedWorkspace, storeActor as by } from '../helpers/seed.js';
import { startTestApp } from '../helpers/test-app.js';

// Each thing is created a second after the one before: listings are oldest first.
const clock = new ManualClock();
function later<T>(create: () => Promise<T>): Promise<T> {
  clock.advance(1000);
  return create();
}
const t = await startTestApp({ clock });
afterAll(() => t.close());
const access: ResourceAccess = t.runtime.access;

const member = await seedClient(t.runtime);
const caller: Caller = (await t.runtime.reads.findPrincipal(member.clientId))!;
const first = await later(() => seedWorkspace(t.runtime, [member.email], 'First'));
const second = await later(() => seedWorkspace(t.runtime, [member.email], 'Second'));
const foreignWorkspace = await seedWorkspace(t.runtime, [(await seedClient(t.runtime)).email], 'Theirs');
const sessions = makeSessions(1);
const a = await later(() => seedTest(t.runtime, first, sessions));
const b = await later(() => seedTest(t.runtime, first));
const c = await later(() => seedTest(t.runtime, second));
const foreignSessions = makeSessions(1);
const foreignTest = await seedTest(t.runtime, foreignWorkspace, foreignSessions);

/** A clip and a highlight reel of `sessionId`'s video (recorded without bytes). */
async function clipAndReel(testId: string, sessionId: string) {
  const video = { objectKey: `videos/${sessionId}/v.mp4`, posterKey: null, contentSha256: 'c'.repeat(64), contentType: 'video/mp4', sizeBytes: 1 };
  await t.runtime.store.videos.saveVideo({ sessionId, ...video, durationMs: 5000, width: 2, height: 2, hasAudio: false, regions: {} }, by);
  const clip = await t.runtime.store.clips.createClip({ sessionId, startMs: 0, endMs: 1000, name: 'Clip' }, by);
  return { clip, reel: await t.runtime.store.reels.createReel({ testId, name: 'Reel', clipIds: [clip.id] }, by) };
}
const own = await clipAndReel(a, sessions[0]!.sessionId);
const theirs = await clipAndReel(foreignTest, foreignSessions[0]!.sessionId);

/** What a refusal says in public: never the internal detail, which names the id. */
async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiProblem);
  const { code, status, detail } = error as ApiProblem;
  return { code, status, detail };
}

describe('the listings', () => {
  it('are the workspaces where the caller is a member and their tests, oldest first; no other', async () => {
    expect((await access.workspaces(caller)).map((w) => w.id)).toEqual([first, second]);
    expect((await access.tests(caller)).map((test) => test.id)).toEqual([a, b, c]);
    expect((await access.testsOfWorkspace(caller, second.toUpperCase())).map((test) => test.id)).toEqual([c]);
  });

  it('of a workspace that is not the caller\'s is refused as one that does not exist', async () => {
    const foreign = await refusal(access.testsOfWorkspace(caller, foreignWorkspace));
    expect(foreign).toEqual({ code: 'not-found', status: 404, detail: 'Workspace not found' });
    expect(await refusal(access.testsOfWorkspace(caller, randomUUID()))).toEqual(foreign);
  });
});

describe('each resolver', () => {
  const foreignSession = foreignSessions[0]!.sessionId;
  const cases: [string, (ids: 'theirs' | 'missing') => Promise<unknown>, string][] = [
    ['test', (w) => access.test(caller, w === 'theirs' ? foreignTest : randomUUID(), 'studies'), 'Test not found'],
    ['study', (w) => access.study(caller, w === 'theirs' ? foreignTest : randomUUID(), 'studies'), 'Study not found'],
    ['session', (w) => access.session(caller, w === 'theirs' ? foreignSession : randomUUID()), 'Session not found'],
    ['transcript', (w) => access.transcript(caller, w === 'theirs' ? foreignSession : randomUUID()), 'Transcript not found'],
    ['video', (w) => access.video(caller, w === 'theirs' ? foreignSession : randomUUID()), 'Video not found'],
    ['video of a session', (w) => access.videoOfSession(caller, w === 'theirs' ? foreignSession : randomUUID(), 'clips'), 'Session not found'],
    ['clip of a session', (w) => access.clipOfSession(caller, sessions[0]!.sessionId, w === 'theirs' ? theirs.clip.id : randomUUID()), 'Clip not found'],
    ['clip', (w) => access.clip(caller, w === 'theirs' ? theirs.clip.id : randomUUID()), 'Clip not found'],
    ['reel', (w) => access.reel(caller, a, w === 'theirs' ? theirs.reel.id : randomUUID()), 'Highlight reel not found'],
    ['reel by token', (w) => access.reelByToken(caller, w === 'theirs' ? theirs.reel.token : randomBytes(10).toString('hex')), 'Highlight reel not found'],
    ['workspace', (w) => access.workspace(caller, w === 'theirs' ? foreignWorkspace : randomUUID()), 'Workspace not found'],
  ];
  it.each(cases)('%s: refuses a foreign resource exactly as a missing one', async (_kind, resolve, detail) => {
    const foreign = await refusal(resolve('theirs'));
    expect(foreign).toEqual({ code: 'not-found', status: 404, detail });
    expect(await refusal(resolve('missing'))).toEqual(foreign);
  });

  it('takes ids in any case and returns what is stored', async () => {
    expect((await access.clipOfSession(caller, sessions[0]!.sessionId.toUpperCase(), own.clip.id.toUpperCase())).id).toBe(own.clip.id);
    expect((await access.reel(caller, a.toUpperCase(), own.reel.id.toUpperCase())).id).toBe(own.reel.id);
    expect((await access.session(caller, sessions[0]!.sessionId.toUpperCase())).test.id).toBe(a);
  });
});

describe('a caller whose token is narrowed to some resource families (issue 34)', () => {
  const narrowed: Caller = { ...caller, families: new Set(['sessions']) };

  it('reads those families', async () => {
    expect((await access.session(narrowed, sessions[0]!.sessionId)).session.sessionId).toBe(sessions[0]!.sessionId);
    expect((await access.test(narrowed, a, 'sessions')).id).toBe(a);
  });

  it('is refused the others with 403 insufficient scope, before anything is read: the same for its own, a foreign and a missing one', async () => {
    const answers = await Promise.all([own.clip.id, theirs.clip.id, randomUUID()].map((id) => refusal(access.clip(narrowed, id))));
    expect(answers[0]).toMatchObject({ code: 'insufficient-scope', status: 403 });
    expect(new Set(answers.map((x) => JSON.stringify(x))).size).toBe(1);
    expect(await refusal(access.test(narrowed, a, 'clips'))).toEqual(answers[0]);
    // Each refusal names the scope that would grant the family.
    expect(answers[0]).toMatchObject({ detail: expect.stringContaining('clips:read') });
    expect(await refusal(access.video(narrowed, sessions[0]!.sessionId))).toMatchObject({ code: 'insufficient-scope', status: 403, detail: expect.stringContaining('videos:read') });
  });

  it("searches only the kinds of text its families' REST endpoints serve, in every test of the caller's workspaces", async () => {
    const scope = (families?: ResourceFamily[], testId?: string) => access.searchScope(families ? { ...caller, families: new Set(families) } : caller, testId);
    expect(await scope()).toEqual({ testIds: [a, b, c], kinds: ['answer', 'transcript'] });
    expect(await scope(['sessions'])).toEqual({ testIds: [a, b, c], kinds: ['answer'] });
    expect(await scope(['videos'], b.toUpperCase())).toEqual({ testIds: [b], kinds: ['transcript'] });
    expect(await scope(['sessions', 'videos', 'clips'])).toEqual({ testIds: [a, b, c], kinds: ['answer', 'transcript'] });
    expect(await refusal(scope(['sessions'], foreignTest))).toEqual(await refusal(scope(['sessions'], randomUUID())));
    expect(await refusal(scope(['sessions'], foreignTest))).toMatchObject({ status: 404, detail: 'Test not found' });
    // Nothing searchable granted: refused before anything is read, for its own test, a foreign and a missing one alike.
    const refused = await Promise.all([undefined, a, foreignTest, randomUUID()].map((id) => refusal(scope(['clips'], id))));
    expect(refused[0]).toMatchObject({ code: 'insufficient-scope', status: 403, detail: expect.stringContaining('sessions:read') });
    expect(new Set(refused.map((x) => JSON.stringify(x))).size).toBe(1);
  });
});
