/**
 * The admin API's session page routes (details, transcript, video link), clips, highlight
 * reels and jobs: what each role may do, the same refusals as the CLI, and nothing written
 * when a request is refused.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactRequestUrl } from '../../src/http/log-redaction.js';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import { importVideo } from '../../src/media/import-video.js';
import { generateTestVideo } from '../../src/media/ffmpeg/test-video.js';
import { DETAILS_PLAN, detailsInput, PARTICIPANT_A } from '../helpers/details.js';
import { AdminSession, signedInAdmin, startAdminTestApp } from '../helpers/admin-app.js';
import { hasFfmpeg } from '../helpers/videos.js';

const haveFfmpeg = hasFfmpeg();
const app = await startAdminTestApp();
const by = { actor: 'test' };
const json = async <T = Record<string, unknown>>(res: Response): Promise<T> => (await res.json()) as T;

type Session = AdminSession & { email: string; id: string };
let operator: Session;
let support: Session;
let accountAdmin: Session;
const mine = randomUUID();
const theirs = randomUUID();
const myTest = randomUUID();
const theirTest = randomUUID();
const withEverything = randomUUID(); // details, transcript, video
const bare = randomUUID(); // none of them
const foreign = randomUUID(); // a session of their test, with a video
const talkative = randomUUID(); // a long transcript
const VTT = 'WEBVTT\n\n00:00:00.500 --> 00:00:02.000\nI am looking for the basket.\n\n00:00:02.000 --> 00:00:03.250\nThere it is.\n';
const dir = mkdtempSync(join(tmpdir(), 'results-api-admin-media-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  [operator, support, accountAdmin] = await Promise.all([signedInAdmin(app, 'operator'), signedInAdmin(app, 'support'), signedInAdmin(app, 'account-admin')]);
  const store = app.t.runtime.store;
  await store.directory.createWorkspace({ id: mine, name: 'Mine' }, by);
  await store.directory.createWorkspace({ id: theirs, name: 'Theirs' }, by);
  await store.directory.createTest({ id: myTest, workspaceId: mine, title: 'My test', productType: 'THINK_OUT_LOUD', plan: DETAILS_PLAN }, by);
  await store.directory.createTest({ id: theirTest, workspaceId: theirs, title: 'Their test', productType: 'THINK_OUT_LOUD' }, by);
  await store.admins.assignWorkspace(accountAdmin.id, mine, by);
  const record = (sessionId: string, details?: unknown) =>
    JSON.stringify({ sessionId, status: 'COMPLETE', startTime: '2026-11-01T10:00:00Z', finishTime: '2026-11-01T10:20:00Z', ...(details ? { details } : {}) });
  const parsed = parseSessionFile([record(withEverything, detailsInput({ ...PARTICIPANT_A })), record(bare), record(talkative)].join('\n'), 'ndjson', DETAILS_PLAN);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  await store.sessions.importSessions(myTest, parsed.sessions, by);
  await store.sessions.importSessions(theirTest, [{ sessionId: foreign, audienceId: null, status: 'COMPLETE', startTime: Date.now(), finishTime: null }], by);
  await store.transcripts.importTranscripts(myTest, [{ sessionId: withEverything, vtt: VTT }], by);
  if (haveFfmpeg) {
    const video = join(dir, 'session.mp4');
    await generateTestVideo(video, { seconds: 4 });
    const deps = { sessions: store.sessions, videos: store.videos, storage: app.t.runtime.media.storage };
    await importVideo(deps, { sessionId: withEverything, file: video }, by);
    await importVideo(deps, { sessionId: foreign, file: video }, by);
  }
}, 60_000);

const sessionPath = (sessionId: string, testId = myTest) => `/admin/api/tests/${testId}/sessions/${sessionId}`;

describe('a session with its details, transcript and video', () => {
  it('gives the v3 details, whether there is a transcript and a video, and the clips', async () => {
    const res = await accountAdmin.request('GET', sessionPath(withEverything));
    expect(res.status).toBe(200);
    const body = await json<{
      session: { sessionId: string; testId: string; status: string };
      details: { testPlanId: string; tasks: { uuid: string; text: string; response: { skipped: boolean } | null }[]; taskGroups: { type: string }[] };
      hasTranscript: boolean;
      video: { durationMs: number } | null;
      clips: unknown[];
    }>(res);
    expect(body.session).toMatchObject({ sessionId: withEverything, testId: myTest, status: 'COMPLETE' });
    expect(body.details.testPlanId).toBe(DETAILS_PLAN.id);
    expect(body.details.tasks).toHaveLength(DETAILS_PLAN.tasks.length);
    expect(body.details.tasks[0]).toMatchObject({ text: DETAILS_PLAN.tasks[0]!.text, response: { skipped: false } });
    expect(body.details.taskGroups.map((g) => g.type)).toEqual(['QX_SCORE', 'BALANCED_COMPARISON', 'UNRECOGNIZED', 'QX_SCORE']);
    expect(body.hasTranscript).toBe(true);
    if (haveFfmpeg) expect(body.video).toMatchObject({ durationMs: 4000 });
    expect(body.clips).toEqual([]);

    const plain = await json<{ hasTranscript: boolean; video: unknown; details: { tasks: { response: unknown }[] } }>(await operator.request('GET', sessionPath(bare)));
    expect(plain.hasTranscript).toBe(false);
    expect(plain.video).toBeNull();
    expect(plain.details.tasks.every((t) => t.response === null)).toBe(true);
  });

  it('gives the transcript with its cues and their times; a session without one is 404', async () => {
    const res = await accountAdmin.request('GET', `${sessionPath(withEverything)}/transcript`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      sessionId: withEverything,
      cueCount: 2,
      offset: 0,
      cues: [
        { startMs: 500, endMs: 2000, text: 'I am looking for the basket.' },
        { startMs: 2000, endMs: 3250, text: 'There it is.' },
      ],
    });
    const none = await accountAdmin.request('GET', `${sessionPath(bare)}/transcript`);
    expect(none.status).toBe(404);
    expect((await json<{ detail: string }>(none)).detail).toBe(`session ${bare} has no transcript`);
  });

  it('a long transcript comes a page of stored cues at a time, read at import and never parsed for the page (issue 30)', async () => {
    const cues = 20_000;
    const stamp = (ms: number) => new Date(ms).toISOString().slice(11, 23);
    const text = `WEBVTT\n\n${Array.from({ length: cues }, (_, i) => `${stamp(i * 1000)} --> ${stamp(i * 1000 + 900)}\nw${i}`).join('\n\n')}\n`;
    await app.t.runtime.store.transcripts.importTranscripts(myTest, [{ sessionId: talkative, vtt: text }], by);
    // The stored text made unreadable: the pages still come, so they are not parsed from it.
    await app.t.runtime.store.database.write(null, (tx) => tx.run("UPDATE transcripts SET vtt = 'not WebVTT' WHERE session_id = @id", { id: talkative }));

    const first = await json<{ cueCount: number; offset: number; cues: { text: string }[] }>(await accountAdmin.request('GET', `${sessionPath(talkative)}/transcript`));
    expect(first.cueCount).toBe(cues);
    expect(first.cues).toHaveLength(1000);
    expect(first.cues[999]!.text).toBe('w999');
    const deep = await json<{ offset: number; cues: { startMs: number; text: string }[] }>(
      await accountAdmin.request('GET', `${sessionPath(talkative)}/transcript?offset=19990&limit=50`),
    );
    expect(deep.offset).toBe(19_990);
    expect(deep.cues.map((c) => c.text)).toEqual(Array.from({ length: 10 }, (_, i) => `w${19_990 + i}`));
    expect(deep.cues[0]!.startMs).toBe(19_990_000);
    expect((await accountAdmin.request('GET', `${sessionPath(talkative)}/transcript?limit=1001`)).status).toBe(400);
    // The session page only counts the cues.
    expect(await json(await accountAdmin.request('GET', sessionPath(talkative)))).toMatchObject({ hasTranscript: true });
  });

  it.skipIf(!haveFfmpeg)('gives a short-lived link on the admin listener that plays with ranges, needs no cookie, and refuses an altered one', async () => {
    const res = await accountAdmin.request('GET', `${sessionPath(withEverything)}/video-link`);
    expect(res.status).toBe(200);
    const link = await json<{ videoUrl: string; posterUrl: string | null; contentType: string; expiresAt: string }>(res);
    expect(link.videoUrl).toMatch(/^\/admin\/media\/videos\/[^?]+\?expires=\d+&signature=[\w-]{43}$/);
    expect(link.contentType).toBe('video/mp4');
    expect(link.posterUrl).toMatch(/^\/admin\/media\/videos\/[^?]+\.poster\.jpg\?expires=\d+&signature=[\w-]{43}$/);
    const poster = await fetch(`${app.adminUrl}${link.posterUrl}`);
    expect([poster.status, poster.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    // The signature is the credential: a logged request line never carries it.
    const signature = new URL(link.videoUrl, app.adminUrl).searchParams.get('signature')!;
    expect(redactRequestUrl(link.videoUrl, true)).not.toContain(signature);
    const minutes = (Date.parse(link.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15);

    const part = await fetch(`${app.adminUrl}${link.videoUrl}`, { headers: { range: 'bytes=0-99' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-type')).toBe('video/mp4');
    expect(part.headers.get('content-range')).toMatch(/^bytes 0-99\/\d+$/);
    expect((await part.arrayBuffer()).byteLength).toBe(100);

    const altered = link.videoUrl.replace(/signature=(.)/, (_, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`);
    const refused = await fetch(`${app.adminUrl}${altered}`);
    expect(refused.status).toBe(403);
    // The video's signature on another object's path (its poster): objects are named by content, not by session.
    const otherObject = `${link.posterUrl!.split('?')[0]}?${link.videoUrl.split('?')[1]}`;
    expect((await fetch(`${app.adminUrl}${otherObject}`)).status).toBe(403);

    const noVideo = await accountAdmin.request('GET', `${sessionPath(bare)}/video-link`);
    expect(noVideo.status).toBe(404);
  });

  it('a session of another workspace, or of another test, answers 404 exactly as an unknown one', async () => {
    const unknown = randomUUID();
    for (const suffix of ['', '/transcript', '/video-link']) {
      const a = await accountAdmin.request('GET', `${sessionPath(foreign, theirTest)}${suffix}`);
      const b = await accountAdmin.request('GET', `${sessionPath(unknown, theirTest)}${suffix}`);
      expect([suffix, a.status, b.status]).toEqual([suffix, 404, 404]);
      expect((await json<{ detail: string }>(a)).detail.replace(foreign, 'ID')).toBe((await json<{ detail: string }>(b)).detail.replace(unknown, 'ID'));
      // A session of the test they can see, asked for under another test: the same 404.
      expect((await operator.request('GET', `${sessionPath(withEverything, theirTest)}${suffix}`)).status).toBe(404);
    }
    for (const method of ['GET', 'POST']) {
      const body = method === 'POST' ? { startMs: 0, endMs: 1000, name: 'Sneaky' } : undefined;
      const a = await accountAdmin.request(method, `/admin/api/sessions/${foreign}/clips`, body);
      const b = await accountAdmin.request(method, `/admin/api/sessions/${unknown}/clips`, body);
      expect([method, a.status]).toEqual([method, 404]);
      expect((await json<{ detail: string }>(a)).detail.replace(foreign, 'ID')).toBe((await json<{ detail: string }>(b)).detail.replace(unknown, 'ID'));
    }
    expect(await app.t.runtime.store.clips.listClips(foreign)).toEqual([]);
    expect((await accountAdmin.request('GET', `/admin/api/tests/${theirTest}/reels`)).status).toBe(404);
    expect((await accountAdmin.request('GET', `/admin/api/tests/${theirTest}/clips`)).status).toBe(404);
    expect((await accountAdmin.request('POST', `/admin/api/tests/${theirTest}/reels`, { name: 'x', clipIds: [randomUUID()] })).status).toBe(404);
  });
});

describe.skipIf(!haveFfmpeg)('clips, reels and jobs', () => {
  it('creates a clip (audited with the admin) and lists it with its status; refuses what clips create refuses, writing nothing', async () => {
    const clips = `/admin/api/sessions/${withEverything}/clips`;
    const refusals: [unknown, number, string][] = [
      [{ startMs: 2000, endMs: 1000, name: 'Backwards' }, 400, 'a clip must end after it starts: endMs 1000 is not after startMs 2000'],
      [{ startMs: 0, endMs: 9000, name: 'Too long' }, 400, 'the clip must end within the video: --end-ms 9000 is past its end at 4000 ms'],
      [{ startMs: -5, endMs: 1000, name: 'Negative' }, 400, 'body.startMs must be >= 0'],
      [{ startMs: 0, endMs: 1000, name: '   ' }, 400, 'body.name must match pattern "^[^\\u0000-\\u001f\\u007f]*\\S[^\\u0000-\\u001f\\u007f]*$"'],
      [{ startMs: 0, endMs: 1000 }, 400, 'body needs name'],
    ];
    for (const [body, status, detail] of refusals) {
      const res = await accountAdmin.request('POST', clips, body);
      expect([JSON.stringify(body), res.status, (await json<{ detail: string }>(res)).detail]).toEqual([JSON.stringify(body), status, detail]);
    }
    const noVideo = await accountAdmin.request('POST', `/admin/api/sessions/${bare}/clips`, { startMs: 0, endMs: 1000, name: 'x' });
    expect(noVideo.status).toBe(404);
    expect(await app.t.runtime.store.clips.listClips(withEverything)).toEqual([]);
    expect(await app.t.runtime.store.jobs.list({ kind: 'clip.generate' })).toEqual([]);

    const created = await accountAdmin.request('POST', clips, { startMs: 500, endMs: 2500, name: ' Hesitation ', description: 'At the basket' });
    expect(created.status).toBe(201);
    const clip = await json<{ clipUuid: string }>(created);
    expect(clip).toMatchObject({ sessionId: withEverything, testId: myTest, name: 'Hesitation', description: 'At the basket', startMs: 500, endMs: 2500, status: 'GENERATING', lastError: null });
    expect(await json(await accountAdmin.request('GET', clips))).toEqual([clip]);
    expect((await json<{ clips: unknown[] }>(await accountAdmin.request('GET', sessionPath(withEverything)))).clips).toEqual([clip]);
    const events = await app.t.runtime.store.audit.list({ action: 'clip.create', subject: clip.clipUuid });
    expect(events.map((e) => e.actor)).toEqual([`admin:${accountAdmin.email}`]);

    const jobs = await json<{ kind: string; subject: string; state: string }[]>(await operator.request('GET', '/admin/api/jobs?kind=clip.generate&state=queued'));
    expect(jobs).toEqual([expect.objectContaining({ kind: 'clip.generate', subject: clip.clipUuid, state: 'queued' })]);
    expect(await json(await operator.request('GET', '/admin/api/jobs?state=done'))).toEqual([]);
    expect((await operator.request('GET', '/admin/api/jobs?state=stuck')).status).toBe(400);
    expect((await operator.request('GET', '/admin/api/jobs?limit=0')).status).toBe(400);
  });

  it('joins clips of the test into a reel and lists it; refuses a clip of another test, or one listed twice, writing nothing', async () => {
    const store = app.t.runtime.store;
    const one = await store.clips.createClip({ sessionId: withEverything, startMs: 0, endMs: 1000, name: 'One' }, by);
    const two = await store.clips.createClip({ sessionId: withEverything, startMs: 2000, endMs: 3500, name: 'Two' }, by);
    const other = await store.clips.createClip({ sessionId: foreign, startMs: 0, endMs: 1000, name: 'Theirs' }, by);
    const reels = `/admin/api/tests/${myTest}/reels`;
    const ofAnother = await accountAdmin.request('POST', reels, { name: 'Mixed', clipIds: [one.id, other.id] });
    expect(ofAnother.status).toBe(409);
    expect((await json<{ detail: string }>(ofAnother)).detail).toBe(`clip ${other.id} is of a session of another test than ${myTest}`);
    expect((await accountAdmin.request('POST', reels, { name: 'Twice', clipIds: [one.id, one.id] })).status).toBe(409);
    expect((await accountAdmin.request('POST', reels, { name: 'Empty', clipIds: [] })).status).toBe(400);
    expect((await accountAdmin.request('POST', reels, { name: 'Unknown', clipIds: [randomUUID()] })).status).toBe(404);
    expect(await store.reels.listReels(myTest)).toEqual([]);

    const created = await accountAdmin.request('POST', reels, { name: 'Highlights', clipIds: [two.id, one.id] });
    expect(created.status).toBe(201);
    const reel = await json<{ reelId: string }>(created);
    expect(reel).toMatchObject({ testId: myTest, name: 'Highlights', clipIds: [two.id, one.id], durationMs: 2500, status: 'GENERATING' });
    expect(await json(await accountAdmin.request('GET', reels))).toEqual([reel]);
    const ofTest = await json<{ clipUuid: string; testId: string }[]>(await accountAdmin.request('GET', `/admin/api/tests/${myTest}/clips`));
    expect(ofTest.map((c) => c.clipUuid)).toEqual(expect.arrayContaining([one.id, two.id]));
    expect(ofTest.every((c) => c.testId === myTest)).toBe(true);
    const events = await store.audit.list({ action: 'reel.create', subject: reel.reelId });
    expect(events.map((e) => e.actor)).toEqual([`admin:${accountAdmin.email}`]);
  });
});

describe('roles', () => {
  it('support may see no session, clip, reel or job; an account admin no job', async () => {
    const routes: [Session, string, string, unknown?][] = [
      [support, 'GET', sessionPath(withEverything)],
      [support, 'GET', `${sessionPath(withEverything)}/transcript`],
      [support, 'GET', `${sessionPath(withEverything)}/video-link`],
      [support, 'GET', `/admin/api/sessions/${withEverything}/clips`],
      [support, 'POST', `/admin/api/sessions/${withEverything}/clips`, { startMs: 0, endMs: 1000, name: 'x' }],
      [support, 'GET', `/admin/api/tests/${myTest}/clips`],
      [support, 'GET', `/admin/api/tests/${myTest}/reels`],
      [support, 'POST', `/admin/api/tests/${myTest}/reels`, { name: 'x', clipIds: [randomUUID()] }],
      [support, 'GET', '/admin/api/jobs'],
      [accountAdmin, 'GET', '/admin/api/jobs'],
    ];
    for (const [session, method, path, body] of routes) {
      const res = await session.request(method, path, body);
      expect([session.email, method, path, res.status]).toEqual([session.email, method, path, 403]);
    }
  });
});
