/**
 * Conformance to the real contract: every operation of the fixtures (the real documents'
 * operations we implement) is called live, and each response is checked against the real
 * response schema. Operations are probed by operationId (by method and path in the Legacy v1
 * document, which names none); an operation added to a fixture without probes fails the
 * suite, as does a documented status that no probe produces and NOT_PRODUCED does not excuse.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { OpenAPIV3, OpenAPIV3_1 } from 'openapi-types';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionInput, TestPlan } from '../../src/store/store.js';
import { completedOnly, makeSessions, seed, seedClient, seedTest, seedWorkspace, sortNewestFirst, storeActor, type Seeded } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { mintToken } from '../helpers/tokens.js';
import { DETAILS_PLAN, detailsInput, OTHER_ANSWERS, PARTICIPANT_A, PARTICIPANT_B } from '../helpers/details.js';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import { liveResponse, RealContract, type LiveResponse } from './real-contract.js';
import { legacyNumericId } from '../../src/legacy/numeric-id.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importVideo } from '../../src/media/import-video.js';
import { makeVideo } from '../helpers/videos.js';

const contract = new RealContract();
const RATE_LIMIT = 50;

/** One live call of a real operation, and the status a correct server answers it with. */
interface Probe {
  name: string;
  status: number;
  call: () => Promise<Response>;
  /** Checks beyond the schema (the behaviour the real contract describes in words). */
  also?: (response: LiveResponse) => void | Promise<void>;
}

// A public host name for BASE_URL: the real videoUrl's format ("url") refuses loopback addresses.
const { t, client } = await startSeededApp({ env: { RATE_LIMIT_API: String(RATE_LIMIT), BASE_URL: 'http://results.example.com' } });
let token: string;
let tokenFormA: string;
let testId: string;
let emptyTestId: string;
let foreignTestId: string;
let stored: SessionInput[];
let burnerToken: string;
let workspaceId: string;
let plannedTestId: string;
let plannedStored: SessionInput[];
let foreign: Seeded;
let lonerToken: string;
/** A test with a plan holding every task type and QX groups, and sessions with details; probed with its own budget. */
let detailedTestId: string;
let detailedSessionIds: string[];
let detailsToken: string;
/** A session of `testId` with a transcript, and one without. */
let transcribed: SessionInput;
let untranscribed: SessionInput;
const TRANSCRIPT = 'WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello, World!\n\n00:00:02.000 --> 00:00:04.000\nThis is a VTT example\n';
/** The session with a video, and a member who asks for it (with a budget of its own), and one who spends it. */
let videoSessionId: string;
let videoToken: string;
let videoBurnerToken: string;
/** Legacy v1 operations are probed by other members of the workspace, each with its own request budget. */
const legacyTokens: Record<'workspaces' | 'studies' | 'study' | 'completed' | 'session', string> = {} as never;

const plan: TestPlan = {
  id: 'plan-1',
  shortTest: false,
  taskGroups: [{ id: 'main', type: 'MAIN' }],
  tasks: [
    { text: 'Open the store.', taskType: 'launch_url', launchUrl: 'https://shop.example.com', taskGroupId: 'main', blurPII: true },
    { text: 'How easy was it?', taskType: 'rating_scale', scaleMinimum: 1, scaleMaximum: 5, lowerEndpoint: 'Hard', upperEndpoint: 'Easy' },
    { text: 'Which did you use?', taskType: 'multiple_choice', choices: ['Search', 'Menu'], multipleAnswers: true, grouping: 'INITIAL' },
  ],
};

beforeAll(async () => {
  const members = { workspaces: await seedClient(t.runtime), studies: await seedClient(t.runtime), study: await seedClient(t.runtime), completed: await seedClient(t.runtime), session: await seedClient(t.runtime) };
  workspaceId = await seedWorkspace(t.runtime, [client.email, ...Object.values(members).map((m) => m.email)]);
  // More than two pages of 50 completed sessions for the v1 cursor, among sessions of every status.
  stored = makeSessions(200, { tiesEvery: 4, statuses: ['COMPLETE', 'COMPLETE', 'IN_PROGRESS', 'COMPLETE', 'ABANDONED', 'COMPLETE', 'SCREENED_OUT'] });
  testId = await seedTest(t.runtime, workspaceId, stored);
  emptyTestId = await seedTest(t.runtime, workspaceId);
  plannedTestId = randomUUID();
  await t.runtime.store.directory.createTest(
    { id: plannedTestId, workspaceId, title: 'Store', productType: 'THINK_OUT_LOUD', orderedAt: Date.UTC(2024, 5, 1), orderedBy: { email: 'rita@example.com', name: 'Rita' }, plan },
    storeActor,
  );
  plannedStored = makeSessions(3);
  await t.runtime.store.sessions.importSessions(plannedTestId, plannedStored, storeActor);
  foreign = await seed(t.runtime, { sessions: 3 });
  foreignTestId = foreign.testId;
  token = await mintToken(t, client, 'B');
  tokenFormA = await mintToken(t, client, 'A');
  burnerToken = await mintToken(t, await seedClient(t.runtime), 'B');
  lonerToken = await mintToken(t, await seedClient(t.runtime), 'B');
  for (const [operation, member] of Object.entries(members)) legacyTokens[operation as keyof typeof members] = await mintToken(t, member, 'B');

  // In a workspace of its own (the v1 probes count the studies of the first one); the member sees both.
  const detailsMember = await seedClient(t.runtime);
  await t.runtime.store.directory.addMember(workspaceId, detailsMember.email, storeActor);
  const detailsWorkspaceId = await seedWorkspace(t.runtime, [detailsMember.email]);
  detailsToken = await mintToken(t, detailsMember, 'B');
  detailedTestId = randomUUID();
  await t.runtime.store.directory.createTest({ id: detailedTestId, workspaceId: detailsWorkspaceId, title: 'Checkout', productType: 'NON_THINK_OUT_LOUD', plan: DETAILS_PLAN }, storeActor);
  detailedSessionIds = [randomUUID(), randomUUID(), randomUUID()];
  const records = [{ ...PARTICIPANT_A, ...OTHER_ANSWERS }, { ...PARTICIPANT_B }, null].map((answers, i) =>
    JSON.stringify({
      sessionId: detailedSessionIds[i],
      status: 'COMPLETE',
      startTime: new Date(Date.UTC(2024, 10, 21, 12, i)).toISOString(),
      finishTime: new Date(Date.UTC(2024, 10, 21, 13, i)).toISOString(),
      ...(answers ? { details: detailsInput(answers) } : {}),
    }),
  );
  const parsed = parseSessionFile(records.join('\n'), 'ndjson', DETAILS_PLAN);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  await t.runtime.store.sessions.importSessions(detailedTestId, parsed.sessions, storeActor);
  [transcribed, untranscribed] = completedOnly(stored) as [SessionInput, SessionInput];
  await t.runtime.store.transcripts.importTranscripts(testId, [{ sessionId: transcribed!.sessionId, vtt: TRANSCRIPT }], storeActor);
  await t.runtime.store.transcripts.importTranscripts(foreignTestId, [{ sessionId: foreign.sessions[0]!.sessionId, vtt: TRANSCRIPT }], storeActor);
  const [viewer, videoBurner] = [await seedClient(t.runtime), await seedClient(t.runtime)];
  for (const member of [viewer, videoBurner]) await t.runtime.store.directory.addMember(workspaceId, member.email, storeActor);
  videoToken = await mintToken(t, viewer, 'B');
  videoBurnerToken = await mintToken(t, videoBurner, 'B');
  videoSessionId = completedOnly(stored)[0]!.sessionId;
  const videoDir = mkdtempSync(join(tmpdir(), 'results-api-contract-video-'));
  try {
    const file = await makeVideo(videoDir, 'session.mp4', { seconds: 1 });
    await importVideo({ ...t.runtime.store, storage: t.runtime.media.storage }, { sessionId: videoSessionId, file }, storeActor);
  } finally {
    rmSync(videoDir, { recursive: true, force: true });
  }
  clips = await seedClips();
});

/** A session video with a clip in the caller's workspace and another in a foreign one (no bytes: the clips stay GENERATING). */
async function seedClips() {
  const video = (sessionId: string) => ({
    sessionId, objectKey: `videos/${sessionId}.mp4`, posterKey: null, contentSha256: '0'.repeat(64), contentType: 'video/mp4',
    sizeBytes: 1000, durationMs: 60_000, width: 1280, height: 720, hasAudio: true,
    regions: { screen: { topLeftPoint: { x: 0, y: 0 }, widthPx: 1280, heightPx: 720 } },
  });
  const sessionId = plannedStored[0]!.sessionId;
  const foreignSessionId = foreign.sessions[0]!.sessionId;
  for (const id of [sessionId, foreignSessionId]) await t.runtime.store.videos.saveVideo(video(id), storeActor);
  const clip = await t.runtime.store.clips.createClip({ sessionId, startMs: 1000, endMs: 9000, name: 'Clip #1', description: 'Hesitates at checkout' }, storeActor);
  const foreignClip = await t.runtime.store.clips.createClip({ sessionId: foreignSessionId, startMs: 0, endMs: 5000, name: 'Theirs' }, storeActor);
  const reel = await t.runtime.store.reels.createReel({ testId: plannedTestId, name: 'Checkout highlights', clipIds: [clip.id] }, storeActor);
  const foreignReel = await t.runtime.store.reels.createReel({ testId: foreignTestId, name: 'Theirs', clipIds: [foreignClip.id] }, storeActor);
  const burners = [0, 1, 2, 3].map(async () => mintToken(t, await seedClient(t.runtime), 'B'));
  return {
    sessionId, foreignSessionId, clipId: clip.id, foreignClipId: foreignClip.id, reelId: reel.id, foreignReelId: foreignReel.id,
    reelToken: reel.token, foreignReelToken: foreignReel.token, burners: await Promise.all(burners),
  };
}
let clips: Awaited<ReturnType<typeof seedClips>>;
const clipsOf = (sessionId: string, headers: Record<string, string> = bearer(token)) => fetch(`${t.url}/api/v2/sessionResults/${sessionId}/clips`, { headers });
const clipOf = (sessionId: string, clipId: string, headers: Record<string, string> = bearer(token)) =>
  fetch(`${t.url}/api/v2/sessionResults/${sessionId}/clips/${clipId}`, { headers });
const reelsOf = (testId: string, headers: Record<string, string> = bearer(token)) => fetch(`${t.url}/api/v2/testResults/${testId}/highlightreels`, { headers });
const reelOf = (testId: string, reelId: string, headers: Record<string, string> = bearer(token)) =>
  fetch(`${t.url}/api/v2/testResults/${testId}/highlightreels/${reelId}`, { headers });

const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
const list = (query: string, headers: Record<string, string> = bearer(token), path = '/api/v2/sessionResults') =>
  fetch(`${t.url}${path}?${query}`, { headers });

interface SummaryPage {
  testId: string;
  sessions: { sessionId: string; status: string; finishTime: string | null }[];
  meta: { pagination: { limit: number; offset: number; totalCount: number } };
}
const pageOf = (r: LiveResponse) => JSON.parse(r.body) as SummaryPage;

/** What the real list promises in words: completed sessions only, newest first, counted alone. */
const completedPage = (offset: number, limit: number) => (r: LiveResponse) => {
  const page = pageOf(r);
  const completed = completedOnly(stored);
  expect(page.meta.pagination).toMatchObject({ limit, offset, totalCount: completed.length });
  expect(page.sessions.map((s) => s.sessionId)).toEqual(completed.slice(offset, offset + limit).map((s) => s.sessionId));
  for (const s of page.sessions) {
    expect(s.status).toBe('COMPLETE');
    expect(s.finishTime).not.toBeNull();
  }
};


/** The Legacy v1 family, at its real base path (or the earlier one without `/usertesting/api`). */
const v1 = (path: string, tokenOrHeaders: string | Record<string, string>, base = '/usertesting/api/v1') =>
  fetch(`${t.url}${base}${path}`, { headers: typeof tokenOrHeaders === 'string' ? bearer(tokenOrHeaders) : tokenOrHeaders });
const bodyOf = <T>(r: LiveResponse) => JSON.parse(r.body) as T;

interface StudyEntry { uuid: string; type: string; cursor: string }
interface CompletedPage { completedSessionCount: number; sessions: { sessionUuid: string; cursor: string; state: string }[] }
const completedV1 = () => sortNewestFirst(completedOnly(stored));

/** A completed-sessions page of `testId`: the `from`-th to the (from+50)-th completed session. */
const completedV1Page = (from: number) => (r: LiveResponse) => {
  const page = bodyOf<CompletedPage>(r);
  expect(page.completedSessionCount).toBe(completedV1().length);
  expect(page.sessions.map((s) => s.sessionUuid)).toEqual(completedV1().slice(from, from + 50).map((s) => s.sessionId));
  for (const s of page.sessions) expect(s.state).toBe('completed');
};

/** The cursor of the `index`-th session of a completed-sessions page (after `after` when given). */
async function sessionCursor(index: number, after?: string): Promise<string> {
  const query = after === undefined ? '' : `?after=${encodeURIComponent(after)}`;
  const page = (await (await v1(`/studies/${testId}/completed-sessions${query}`, legacyTokens.completed)).json()) as CompletedPage;
  return page.sessions.at(index)!.cursor;
}

/** The studies of the workspace, as the listing gives them. */
const studies = async (): Promise<StudyEntry[]> => (await (await v1(`/workspaces/${workspaceId}`, legacyTokens.studies)).json()) as StudyEntry[];

/** Documented statuses no probe produces, and why: the suite fails on any other one left unprobed. */
const UNEXPECTED_FAULT = 'an unexpected fault; nothing a client sends provokes one (a database outage is a 503)';
const NOT_PRODUCED: Record<string, Record<string, string>> = {
  'GET /usertesting/api/v1/workspaces': { 404: 'a caller in no workspace gets an empty array, as nothing is missing', 500: UNEXPECTED_FAULT },
  'GET /usertesting/api/v1/workspaces/{workspaceUuid}': { 500: UNEXPECTED_FAULT },
  'GET /usertesting/api/v1/studies/{studyUuid}': { 500: UNEXPECTED_FAULT },
  'GET /usertesting/api/v1/studies/{studyUuid}/completed-sessions': { 500: UNEXPECTED_FAULT },
  'GET /usertesting/api/v1/session/{sessionUuid}': { 500: UNEXPECTED_FAULT },
  'GET /usertesting/api/v1/clip/{clipUuid}': { 500: UNEXPECTED_FAULT },
  'GET /usertesting/api/v1/highlightreel/{highlightReelToken}': { 500: UNEXPECTED_FAULT },
};

/**
 * Spends a burner's budget with `spend` (its requests count whatever they answer) until it is
 * refused, then makes the `over` call. The windows follow the real clock here, so one may end
 * while it is being spent: spending then goes on into the next, which is refused in turn.
 */
async function overTheLimit(spend: () => Promise<Response>, over = spend): Promise<Response> {
  // The limit's fixed window can end between the spending and the probe (a new window answers
  // normally): then the budget is spent once more, in the new window.
  for (let attempt = 1; ; attempt++) {
    for (let i = 0; i <= 2 * RATE_LIMIT; i++) {
      const res = await spend();
      await res.arrayBuffer();
      if (res.status === 429) break;
    }
    const res = await over();
    if (res.status === 429 || attempt === 2) return res;
    await res.arrayBuffer();
  }
}

/** A GET of `path` with `token`, as a call to repeat. */
const getWith = (path: string, token = burnerToken) => () => fetch(`${t.url}${path}`, { headers: bearer(token) });

const detailsOf = (sessionId: string, headers: Record<string, string> = bearer(detailsToken)) =>
  fetch(`${t.url}/api/v3/sessionResults/${sessionId}`, { headers });
const qxScoresOf = (test: string, headers: Record<string, string> = bearer(detailsToken)) =>
  fetch(`${t.url}/api/v2/testResults/${test}/qxScores`, { headers });

const PROBES: Record<string, () => Probe[]> = {
  SessionResultsV3Controller_getSessionResults: () => [
    {
      name: 'a session with every task type answered',
      status: 200,
      call: () => detailsOf(detailedSessionIds[0]!),
      also: (r) => {
        const body = bodyOf<{ tasks: { type: string; response: unknown }[]; taskGroups: { type: string }[] }>(r);
        expect(body.tasks.map((task) => task.type)).toEqual(expect.arrayContaining(['BLANK', 'RATING_SCALE', 'MULTIPLE_CHOICE', 'IMAGE', 'NPS', 'URL', 'RANK_ORDER', 'WRITTEN', 'FIGMA', 'MATRIX']));
        expect(body.tasks.every((task) => task.response !== null)).toBe(true);
      },
    },
    { name: 'a session with skipped and unanswered tasks', status: 200, call: () => detailsOf(detailedSessionIds[1]!) },
    { name: 'a session without details', status: 200, call: () => detailsOf(detailedSessionIds[2]!), also: (r) => expect(bodyOf<{ sessionParticipant: unknown }>(r).sessionParticipant).toBeNull() },
    { name: 'a session of a test without a plan', status: 200, call: () => detailsOf(stored[0]!.sessionId) },
    { name: 'no token', status: 401, call: () => detailsOf(detailedSessionIds[0]!, {}) },
    { name: 'an unknown session', status: 404, call: () => detailsOf(randomUUID()) },
    { name: "a session of another team's test", status: 404, call: () => detailsOf(foreign.sessions[0]!.sessionId) },
    { name: 'over the rate limit', status: 429, call: () => overTheLimit(getWith(`/api/v3/sessionResults/${detailedSessionIds[0]}`)) },
  ],
  TestResultsController_getQxScoreResponse: () => [
    {
      name: 'a test with QX task groups',
      status: 200,
      call: () => qxScoresOf(detailedTestId),
      also: (r) => expect(bodyOf<{ meta: unknown }>(r).meta).toEqual({ totalQxTasks: 2, completes: 2 }),
    },
    { name: 'a test without a plan', status: 200, call: () => qxScoresOf(testId), also: (r) => expect(bodyOf<{ qxScores: unknown[] }>(r).qxScores).toEqual([]) },
    { name: 'no token', status: 401, call: () => qxScoresOf(detailedTestId, {}) },
    { name: 'an unknown test', status: 404, call: () => qxScoresOf(randomUUID()) },
    { name: "another team's test", status: 404, call: () => qxScoresOf(foreignTestId) },
    { name: 'over the rate limit', status: 429, call: () => overTheLimit(getWith(`/api/v2/testResults/${detailedTestId}/qxScores`)) },
  ],
  SessionResultsController_getClips: () => [
    {
      name: 'the clips of a session video',
      status: 200,
      call: () => clipsOf(clips.sessionId),
      also: (r) => expect(bodyOf(r)).toMatchObject({ studyUuid: plannedTestId, clips: [{ uuid: clips.clipId, timeStartMs: 1000, timeEndMs: 9000 }] }),
    },
    { name: 'no token', status: 401, call: () => clipsOf(clips.sessionId, {}) },
    { name: 'an unknown session', status: 404, call: () => clipsOf(randomUUID()) },
    { name: "another team's session", status: 404, call: () => clipsOf(clips.foreignSessionId) },
    { name: 'over the rate limit', status: 429, call: () => overTheLimit(getWith(`/api/v2/sessionResults/${clips.sessionId}/clips`, clips.burners[0]!)) },
  ],
  SessionResultsController_getClipDetails: () => [
    {
      name: 'a clip being generated',
      status: 200,
      call: () => clipOf(clips.sessionId, clips.clipId),
      also: (r) => expect(bodyOf(r)).toEqual({ clipUuid: clips.clipId, status: 'GENERATING', clipUrl: null }),
    },
    { name: 'no token', status: 401, call: () => clipOf(clips.sessionId, clips.clipId, {}) },
    { name: 'an unknown clip', status: 404, call: () => clipOf(clips.sessionId, randomUUID()) },
    { name: "another team's clip", status: 404, call: () => clipOf(clips.foreignSessionId, clips.foreignClipId) },
    { name: 'over the rate limit', status: 429, call: () => overTheLimit(getWith(`/api/v2/sessionResults/${clips.sessionId}/clips/${clips.clipId}`, clips.burners[1]!)) },
  ],
  TestResultsController_getHighlightReels: () => [
    {
      name: 'the highlight reels of a test',
      status: 200,
      call: () => reelsOf(plannedTestId),
      also: (r) => expect(bodyOf(r)).toMatchObject({ reels: [{ uuid: clips.reelId, numClips: 1, durationMs: 8000, areAllClipsInReel: true }], studyWithClips: true }),
    },
    { name: 'no token', status: 401, call: () => reelsOf(plannedTestId, {}) },
    { name: 'an unknown test', status: 404, call: () => reelsOf(randomUUID()) },
    { name: "another team's test", status: 404, call: () => reelsOf(foreignTestId) },
    { name: 'over the rate limit', status: 429, call: () => overTheLimit(getWith(`/api/v2/testResults/${plannedTestId}/highlightreels`, clips.burners[2]!)) },
  ],
  TestResultsController_getReelDetails: () => [
    {
      name: 'a reel being made',
      status: 200,
      call: () => reelOf(plannedTestId, clips.reelId),
      also: (r) => expect(bodyOf(r)).toEqual({ reelId: clips.reelId, status: 'GENERATING', reelUrl: null }),
    },
    { name: 'no token', status: 401, call: () => reelOf(plannedTestId, clips.reelId, {}) },
    { name: 'an unknown reel', status: 404, call: () => reelOf(plannedTestId, randomUUID()) },
    { name: "another team's reel", status: 404, call: () => reelOf(foreignTestId, clips.foreignReelId) },
    { name: 'over the rate limit', status: 429, call: () => overTheLimit(getWith(`/api/v2/testResults/${plannedTestId}/highlightreels/${clips.reelId}`, clips.burners[3]!)) },
  ],
  SessionResultsController_getSessionSummaryResults: () => [
    { name: 'defaults', status: 200, call: () => list(`testId=${testId}`), also: (r) => expect(pageOf(r).sessions).toHaveLength(25) },
    ...[0, 25, 39].map((offset) => ({
      name: `limit 25, offset ${offset}`,
      status: 200,
      call: () => list(`testId=${testId}&limit=25&offset=${offset}`),
      also: completedPage(offset, 25),
    })),
    { name: 'limit 500', status: 200, call: () => list(`testId=${testId}&limit=500`), also: completedPage(0, 500) },
    { name: 'an offset past the end', status: 200, call: () => list(`testId=${testId}&offset=10000`), also: (r) => expect(pageOf(r).sessions).toEqual([]) },
    { name: 'a test without sessions', status: 200, call: () => list(`testId=${emptyTestId}`), also: (r) => expect(pageOf(r).meta.pagination.totalCount).toBe(0) },
    { name: 'the rowsPerPage/pageNumber extension', status: 200, call: () => list(`testId=${testId}&rowsPerPage=10&pageNumber=2`), also: completedPage(10, 10) },
    {
      name: 'the earlier path with the token header',
      status: 200,
      call: () => list(`testId=${testId}&limit=25&offset=25`, { token: tokenFormA }, '/v2/sessionResults'),
      also: completedPage(25, 25),
    },
    { name: 'limit 0', status: 400, call: () => list(`testId=${testId}&limit=0`) },
    { name: 'limit 501', status: 400, call: () => list(`testId=${testId}&limit=501`) },
    { name: 'offset 10001', status: 400, call: () => list(`testId=${testId}&offset=10001`) },
    { name: 'a testId that is not a UUID', status: 400, call: () => list('testId=nope') },
    { name: 'no token', status: 401, call: () => list(`testId=${testId}`, {}) },
    { name: 'a token that is not one', status: 401, call: () => list(`testId=${testId}`, bearer('garbage')) },
    { name: 'an unknown test', status: 404, call: () => list(`testId=${randomUUID()}`) },
    { name: "another team's test", status: 404, call: () => list(`testId=${foreignTestId}`) },
    {
      name: 'over the rate limit',
      status: 429,
      call: () => overTheLimit(() => list(`testId=${emptyTestId}`, bearer(burnerToken))),
    },
  ],
  SessionResultsController_getTranscriptVtt: () => {
    const transcript = (sessionId: string, headers: Record<string, string> = bearer(token), prefix = '/api/v2') =>
      fetch(`${t.url}${prefix}/sessionResults/${sessionId}/transcript`, { headers });
    // The real document lists no 400 here; ours answers one for a sessionId that is not a UUID (test/results/transcripts.test.ts).
    return [
      { name: 'a session with a transcript', status: 200, call: () => transcript(transcribed.sessionId), also: (r) => expect(r.body).toBe(TRANSCRIPT) },
      { name: 'the earlier path with the token header', status: 200, call: () => transcript(transcribed.sessionId, { token: tokenFormA }, '/v2'), also: (r) => expect(r.body).toBe(TRANSCRIPT) },
      { name: 'no token', status: 401, call: () => transcript(transcribed.sessionId, {}) },
      { name: 'a session without a transcript', status: 404, call: () => transcript(untranscribed.sessionId) },
      { name: 'an unknown session', status: 404, call: () => transcript(randomUUID()) },
      { name: "a session of another team's test", status: 404, call: () => transcript(foreign.sessions[0]!.sessionId) },
      {
        name: 'over the rate limit',
        status: 429,
        call: async () => {
          const burner = await mintToken(t, await seedClient(t.runtime), 'B');
          return overTheLimit(() => transcript(transcribed.sessionId, bearer(burner)));
        },
      },
    ];
  },
  SessionResultsController_getVideoDownloadUrl: () => {
    const videoUrl = (sessionId: string, headers: Record<string, string> = bearer(videoToken)) =>
      fetch(`${t.url}/api/v2/sessionResults/${sessionId}/videoDownloadUrl`, { headers });
    return [
      {
        name: 'a session with a video',
        status: 200,
        call: () => videoUrl(videoSessionId),
        also: async (r) => {
          const body = bodyOf<{ videoUrl: string; sessionId: string; expiresAt: string }>(r);
          expect(body.sessionId).toBe(videoSessionId);
          // Valid for one hour, as the real document says.
          expect(Date.parse(body.expiresAt) - Date.now()).toBeGreaterThan(3590_000);
          const link = new URL(body.videoUrl);
          const video = await fetch(`${t.url}${link.pathname}${link.search}`);
          expect(video.status).toBe(200);
          expect(video.headers.get('content-type')).toBe('video/mp4');
          await video.arrayBuffer();
        },
      },
      { name: 'no token', status: 401, call: () => videoUrl(videoSessionId, {}) },
      { name: 'a session without a video', status: 404, call: () => videoUrl(completedOnly(stored)[1]!.sessionId) },
      { name: 'an unknown session', status: 404, call: () => videoUrl(randomUUID()) },
      { name: "a session of another team's test", status: 404, call: () => videoUrl(foreign.sessions[0]!.sessionId) },
      {
        name: 'over the rate limit',
        status: 429,
        call: () => overTheLimit(() => videoUrl(randomUUID(), bearer(videoBurnerToken)), () => videoUrl(videoSessionId, bearer(videoBurnerToken))),
      },
    ];
  },
  'GET /usertesting/api/v1/workspaces': () => [
    {
      name: "the caller's workspaces",
      status: 200,
      call: () => v1('/workspaces', legacyTokens.workspaces),
      // `id` is a numeric id distinct from the uuid, as the real one.
      also: (r) => expect(bodyOf(r)).toEqual([{ id: String(legacyNumericId(workspaceId)), name: 'Lab', uuid: workspaceId }]),
    },
    { name: 'the earlier path with the token header', status: 200, call: () => v1('/workspaces', { token: tokenFormA }, '/v1'), also: (r) => expect(bodyOf<unknown[]>(r)).toHaveLength(1) },
    { name: 'a caller in no workspace', status: 200, call: () => v1('/workspaces', lonerToken), also: (r) => expect(bodyOf(r)).toEqual([]) },
    { name: 'no token', status: 401, call: () => v1('/workspaces', {}) },
    { name: 'a token that is not one', status: 401, call: () => v1('/workspaces', 'garbage') },
  ],
  'GET /usertesting/api/v1/workspaces/{workspaceUuid}': () => [
    {
      name: 'its studies',
      status: 200,
      call: () => v1(`/workspaces/${workspaceId}`, legacyTokens.studies),
      also: (r) => {
        const entries = bodyOf<StudyEntry[]>(r);
        expect(entries.map((e) => e.uuid).sort()).toEqual([testId, emptyTestId, plannedTestId].sort());
        for (const e of entries) expect(e.type).toBe('STUDYV2');
      },
    },
    {
      name: 'after the first one',
      status: 200,
      call: async () => v1(`/workspaces/${workspaceId}?after=${(await studies())[0]!.cursor}`, legacyTokens.studies),
      also: async (r) => expect(bodyOf(r)).toEqual((await studies()).slice(1)),
    },
    {
      name: 'before the last one',
      status: 200,
      call: async () => v1(`/workspaces/${workspaceId}?before=${(await studies()).at(-1)!.cursor}`, legacyTokens.studies),
      also: async (r) => expect(bodyOf(r)).toEqual((await studies()).slice(0, -1)),
    },
    { name: 'the earlier path', status: 200, call: () => v1(`/workspaces/${workspaceId}`, legacyTokens.studies, '/v1'), also: (r) => expect(bodyOf<unknown[]>(r)).toHaveLength(3) },
    { name: 'a workspaceUuid that is not a UUID', status: 400, call: () => v1('/workspaces/nope', legacyTokens.studies) },
    { name: 'an after that is not a cursor', status: 400, call: () => v1(`/workspaces/${workspaceId}?after=nope`, legacyTokens.studies) },
    { name: 'after with before', status: 400, call: async () => { const [first] = await studies(); return v1(`/workspaces/${workspaceId}?after=${first!.cursor}&before=${first!.cursor}`, legacyTokens.studies); } },
    { name: 'no token', status: 401, call: () => v1(`/workspaces/${workspaceId}`, {}) },
    { name: 'an unknown workspace', status: 404, call: () => v1(`/workspaces/${randomUUID()}`, legacyTokens.studies) },
    { name: "another team's workspace", status: 404, call: () => v1(`/workspaces/${foreign.workspaceId}`, legacyTokens.studies) },
  ],
  'GET /usertesting/api/v1/studies/{studyUuid}': () => [
    {
      name: 'a study with a plan',
      status: 200,
      call: () => v1(`/studies/${plannedTestId}`, legacyTokens.study),
      also: (r) =>
        expect(bodyOf(r)).toMatchObject({
          title: 'Store',
          sessionCount: plannedStored.length,
          orderedBy: { email: 'rita@example.com', name: 'Rita' },
          tasks: [{ position: 1, taskGroup: { id: 'main', type: 'MAIN' } }, { position: 2, scaleMaximum: 5 }, { position: 3, choices: ['Search', 'Menu'] }],
        }),
    },
    { name: 'a study without a plan, sessions of every status counted', status: 200, call: () => v1(`/studies/${testId}`, legacyTokens.study), also: (r) => expect(bodyOf(r)).toMatchObject({ sessionCount: stored.length, tasks: [] }) },
    {
      // Its NPS task (position 7) was answered 9 by A (a promoter) and 6 by B (a detractor); the third session has no details.
      name: 'a study with imported answers: the Net Promoter Score of its NPS task',
      status: 200,
      call: () => v1(`/studies/${detailedTestId}`, detailsToken),
      also: (r) =>
        expect(bodyOf<{ netPromoterScores: unknown[] }>(r).netPromoterScores).toEqual([
          { score: 0, promoterPercentage: 50, passivePercentage: 0, detractorPercentage: 50, position: 7, respondents: 2 },
        ]),
    },
    { name: 'the earlier path', status: 200, call: () => v1(`/studies/${emptyTestId}`, legacyTokens.study, '/v1') },
    { name: 'a studyUuid that is not a UUID', status: 400, call: () => v1('/studies/nope', legacyTokens.study) },
    { name: 'no token', status: 401, call: () => v1(`/studies/${testId}`, {}) },
    { name: 'an unknown study', status: 404, call: () => v1(`/studies/${randomUUID()}`, legacyTokens.study) },
    { name: "another team's study", status: 404, call: () => v1(`/studies/${foreignTestId}`, legacyTokens.study) },
  ],
  'GET /usertesting/api/v1/studies/{studyUuid}/completed-sessions': () => [
    { name: 'the first page', status: 200, call: () => v1(`/studies/${testId}/completed-sessions`, legacyTokens.completed), also: completedV1Page(0) },
    {
      name: 'after the last of the first page',
      status: 200,
      call: async () => v1(`/studies/${testId}/completed-sessions?after=${encodeURIComponent(await sessionCursor(-1))}`, legacyTokens.completed),
      also: completedV1Page(50),
    },
    {
      name: 'before the first of the second page',
      status: 200,
      call: async () => v1(`/studies/${testId}/completed-sessions?before=${encodeURIComponent(await sessionCursor(0, await sessionCursor(-1)))}`, legacyTokens.completed),
      also: completedV1Page(0),
    },
    {
      name: 'a study without sessions',
      status: 200,
      call: () => v1(`/studies/${emptyTestId}/completed-sessions`, legacyTokens.completed),
      also: (r) => expect(bodyOf(r)).toEqual({ completedSessionCount: 0, sessions: [] }),
    },
    { name: 'the earlier path', status: 200, call: () => v1(`/studies/${testId}/completed-sessions`, legacyTokens.completed, '/v1'), also: completedV1Page(0) },
    {
      name: 'sessions with imported answers, one without',
      status: 200,
      call: () => v1(`/studies/${detailedTestId}/completed-sessions`, detailsToken),
      also: (r) => {
        const answers = new Map(bodyOf<{ sessions: { sessionUuid: string; answers: { position: number; skipped: boolean; responses: string[] }[] }[] }>(r).sessions.map((s) => [s.sessionUuid, s.answers]));
        expect(answers.get(detailedSessionIds[0]!)!.map((a) => a.position)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
        expect(answers.get(detailedSessionIds[0]!)![9]).toMatchObject({ position: 10, type: 'multiple_choice', time: 100, duration: 5, skipped: false, responses: ['Search', 'Links'] });
        expect(answers.get(detailedSessionIds[1]!)![1]).toEqual({ position: 2, type: 'figma', time: 20, duration: 5, skipped: true, responses: [] });
        expect(answers.get(detailedSessionIds[2]!)).toEqual([]);
      },
    },
    { name: 'a studyUuid that is not a UUID', status: 400, call: () => v1('/studies/nope/completed-sessions', legacyTokens.completed) },
    {
      name: 'a changed cursor',
      status: 400,
      call: async () => {
        const cursor = await sessionCursor(0);
        // The signature's first character (its last one holds padding bits too, which decode the same).
        const mac = cursor.indexOf('.') + 1;
        const changed = `${cursor.slice(0, mac)}${cursor[mac] === 'A' ? 'B' : 'A'}${cursor.slice(mac + 1)}`;
        return v1(`/studies/${testId}/completed-sessions?after=${encodeURIComponent(changed)}`, legacyTokens.completed);
      },
    },
    {
      name: "another study's cursor",
      status: 400,
      call: async () => v1(`/studies/${plannedTestId}/completed-sessions?after=${encodeURIComponent(await sessionCursor(0))}`, legacyTokens.completed),
    },
    { name: 'no token', status: 401, call: () => v1(`/studies/${testId}/completed-sessions`, {}) },
    { name: 'an unknown study', status: 404, call: () => v1(`/studies/${randomUUID()}/completed-sessions`, legacyTokens.completed) },
    { name: "another team's study", status: 404, call: () => v1(`/studies/${foreignTestId}/completed-sessions`, legacyTokens.completed) },
  ],
  'GET /usertesting/api/v1/clip/{clipUuid}': () => [
    {
      name: 'a clip being cut',
      status: 200,
      call: () => v1(`/clip/${clips.clipId}`, token),
      also: (r) => expect(bodyOf(r)).toMatchObject({ typeName: 'Clip', duration: 8, note: 'Hesitates at checkout', study: { title: 'Store' } }),
    },
    { name: 'the earlier path', status: 200, call: () => v1(`/clip/${clips.clipId}`, token, '/v1') },
    { name: 'a clipUuid that is not a UUID', status: 400, call: () => v1('/clip/nope', token) },
    { name: 'no token', status: 401, call: () => v1(`/clip/${clips.clipId}`, {}) },
    { name: 'an unknown clip', status: 404, call: () => v1(`/clip/${randomUUID()}`, token) },
    { name: "another team's clip", status: 404, call: () => v1(`/clip/${clips.foreignClipId}`, token) },
  ],
  'GET /usertesting/api/v1/highlightreel/{highlightReelToken}': () => [
    {
      name: 'a highlight reel',
      status: 200,
      call: () => v1(`/highlightreel/${clips.reelToken}`, token),
      also: (r) => expect(bodyOf(r)).toMatchObject({ id: String(legacyNumericId(clips.reelId)), token: clips.reelToken, duration: 8, clips: { totalCount: 1, nodes: [{ id: clips.clipId, duration: 8 }] } }),
    },
    { name: 'no token', status: 401, call: () => v1(`/highlightreel/${clips.reelToken}`, {}) },
    { name: 'an unknown token', status: 404, call: () => v1(`/highlightreel/${'0'.repeat(20)}`, token) },
    { name: "the reel's uuid instead of its token", status: 404, call: () => v1(`/highlightreel/${clips.reelId}`, token) },
    { name: "another team's reel", status: 404, call: () => v1(`/highlightreel/${clips.foreignReelToken}`, token) },
  ],
  'GET /usertesting/api/v1/session/{sessionUuid}': () => {
    const finished = () => completedOnly(stored)[0]!;
    const unfinished = () => stored.find((s) => s.status === 'IN_PROGRESS')!;
    return [
      {
        name: 'a completed session',
        status: 200,
        call: () => v1(`/session/${finished().sessionId}`, legacyTokens.session),
        also: (r) => expect(bodyOf(r)).toMatchObject({ uid: finished().sessionId, duration: (finished().finishTime! - finished().startTime) / 1000 }),
      },
      {
        name: 'a session in progress',
        status: 200,
        call: () => v1(`/session/${unfinished().sessionId}`, legacyTokens.session),
        also: (r) => expect(bodyOf(r)).not.toHaveProperty('duration'),
      },
      { name: 'the earlier path', status: 200, call: () => v1(`/session/${finished().sessionId}`, legacyTokens.session, '/v1') },
      { name: 'a sessionUuid that is not a UUID', status: 400, call: () => v1('/session/nope', legacyTokens.session) },
      { name: 'no token', status: 401, call: () => v1(`/session/${finished().sessionId}`, {}) },
      { name: 'an unknown session', status: 404, call: () => v1(`/session/${randomUUID()}`, legacyTokens.session) },
      { name: "a session of another team's study", status: 404, call: () => v1(`/session/${foreign.sessions[0]!.sessionId}`, legacyTokens.session) },
    ];
  },
};

describe('the real contract, live', () => {
  it('probes every operation of the fixtures, and every status each one documents', () => {
    for (const { operationId, operation } of contract.operations) {
      const probes = PROBES[operationId]?.() ?? [];
      expect(probes.length, `no probes for ${operationId}`).toBeGreaterThan(0);
      const excused = Object.keys(NOT_PRODUCED[operationId] ?? {});
      const probed = new Set(probes.map((p) => String(p.status)));
      for (const status of excused) expect(probed.has(status), `${operationId} ${status} is probed, so not excused`).toBe(false);
      expect(new Set([...probed, ...excused]), operationId).toEqual(new Set(Object.keys(operation.responses)));
    }
    expect(Object.keys(PROBES).sort()).toEqual(contract.operations.map((o) => o.operationId).sort());
  });

  for (const [operationId, probesOf] of Object.entries(PROBES)) {
    describe(operationId, () => {
      it.each(probesOf().map((p) => [p.name, p] as const))('%s', async (_name, probe) => {
        const response = await liveResponse(await probe.call());
        expect(response.status, response.body).toBe(probe.status);
        expect(contract.violations(operationId, response)).toEqual([]);
        await probe.also?.(response);
      });
    });
  }

  it('the checker itself refuses what the real schema refuses', () => {
    const headers = new Headers({ 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': 'ten' });
    const page = { testId: randomUUID(), sessions: [{ sessionId: randomUUID(), status: 'COMPLETE', startTime: 'yesterday' }], meta: {} };
    const violations = contract.violations('SessionResultsController_getSessionSummaryResults', { status: 200, headers, body: JSON.stringify(page) });
    expect(violations.join('\n')).toMatch(/x-ratelimit-limit must be integer/);
    expect(violations.join('\n')).toMatch(/startTime must match format "date-time"/);
    expect(violations.join('\n')).toMatch(/meta must have required property 'pagination'/);
    expect(contract.violations('SessionResultsController_getSessionSummaryResults', { status: 403, headers, body: '' })).toEqual([
      'status 403 is not in the real contract of SessionResultsController_getSessionSummaryResults',
    ]);
    const session = 'GET /usertesting/api/v1/session/{sessionUuid}';
    expect(contract.violations(session, { status: 404, headers, body: JSON.stringify({ errorCode: 404 }) }).join('\n')).toMatch(/errorCode must be string/);
    expect(contract.violations(session, { status: 200, headers, body: JSON.stringify({ uid: 'x', duration: '90' }) }).join('\n')).toMatch(/duration must be number/);
    expect(contract.violations(session, { status: 200, headers: new Headers({ 'content-type': 'text/html' }), body: '{}' })).toEqual([
      'content type text/html is not the real one (application/json)',
    ]);
  });
});

describe('our OpenAPI document names what the real one names', () => {
  let ours: OpenAPIV3_1.Document;
  beforeAll(async () => {
    ours = (await (await fetch(`${t.url}/openapi.json`)).json()) as OpenAPIV3_1.Document;
  });
  type Schema = { $ref?: string; type?: string | string[]; items?: Schema; allOf?: Schema[] } | undefined;
  /**
   * What a schema is, as a generated type would name it: a model, an array of one, or a JSON
   * type (integer is a number). Compared `like` a real schema, a model of ours where the real
   * document writes its object inline is an object.
   */
  const shape = (schema: unknown, like?: unknown): unknown => {
    const s = schema as Schema;
    const real = like as Schema;
    if (s?.allOf?.length === 1) return shape(s.allOf[0], real);
    // A nullable model, written as anyOf [model, null] in OpenAPI 3.1 (the real document says `nullable`).
    const anyOf = (s as { anyOf?: Schema[] } | undefined)?.anyOf?.filter((x) => x?.type !== 'null');
    if (anyOf?.length === 1) return shape(anyOf[0], real);
    // A choice among models (the real document's oneOf of an object type) is an object.
    if (anyOf && anyOf.length > 1 && anyOf.every((x) => x?.$ref)) return 'object';
    if (real?.allOf?.length === 1) return shape(s, real.allOf[0]);
    if (s?.$ref) return real === undefined || real.$ref ? s.$ref : 'object';
    const type = (Array.isArray(s?.type) ? s.type.filter((x) => x !== 'null').join('|') : s?.type)?.replace('integer', 'number');
    return type === 'array' ? ['array', shape(s!.items, real?.items)] : type;
  };

  /** A schema's format, also when it is written as anyOf [it, null]. */
  const formatOf = (schema: unknown): string | undefined => {
    const s = schema as { format?: string; anyOf?: { format?: string }[] } | undefined;
    return s?.format ?? s?.anyOf?.find((x) => x.format)?.format;
  };
  /** The real documents write `format: url`, not a JSON Schema format; `uri` is the one that means it. */
  const ourFormat = (realFormat: string): string => (realFormat === 'url' ? 'uri' : realFormat);

  it.each(contract.operations.map((o) => [o.operationId, o] as const))('%s: same path, method, operationId, parameters and models', (_id, real) => {
    const operation = (ours.paths![real.servedPath] as Record<string, OpenAPIV3_1.OperationObject> | undefined)?.[real.method];
    expect(operation, real.servedPath).toBeDefined();
    // The Legacy v1 document names no operationIds and no tags; ours are then our own.
    if (real.operation.operationId) expect(operation!.operationId).toBe(real.operation.operationId);
    if (real.operation.tags) expect(operation!.tags).toEqual(real.operation.tags);
    const ourParameters = new Map(((operation!.parameters ?? []) as OpenAPIV3_1.ParameterObject[]).map((p) => [`${p.in} ${p.name}`, p]));
    for (const p of real.operation.parameters as OpenAPIV3.ParameterObject[]) {
      expect(ourParameters.get(`${p.in} ${p.name}`)?.required ?? false, `${p.in} ${p.name}`).toBe(p.required ?? false);
    }
    // What we add is marked as an extension.
    const realNames = new Set((real.operation.parameters as OpenAPIV3.ParameterObject[]).map((p) => `${p.in} ${p.name}`));
    for (const [key, p] of ourParameters) if (!realNames.has(key)) expect((p as unknown as Record<string, unknown>)['x-results-api-extension'], key).toBe(true);

    // Every format the real document gives a parameter (uuid), ours gives it too.
    for (const p of real.operation.parameters as OpenAPIV3.ParameterObject[]) {
      const realFormat = (p.schema as OpenAPIV3.SchemaObject | undefined)?.format;
      if (realFormat) expect(formatOf(ourParameters.get(`${p.in} ${p.name}`)?.schema), `${p.in} ${p.name}`).toBe(ourFormat(realFormat));
    }

    const realOk = real.operation.responses['200'] as OpenAPIV3.ResponseObject;
    const ourOk = operation!.responses!['200'] as OpenAPIV3_1.ResponseObject;
    const [mediaType] = Object.keys(realOk.content!);
    expect(Object.keys(ourOk.content!)).toEqual([mediaType]);
    expect(shape(ourOk.content![mediaType!]!.schema)).toEqual(shape(realOk.content![mediaType!]!.schema));
  });

  it('defines every model of the real fixtures under its real name, with its fields, required fields and formats', () => {
    for (const fixture of new Set(contract.operations.map((o) => o.fixture))) {
      const real = JSON.parse(readFileSync(fileURLToPath(new URL(fixture, import.meta.url)), 'utf8')) as OpenAPIV3.Document;
      for (const [name, schema] of Object.entries(real.components!.schemas!) as [string, OpenAPIV3.SchemaObject][]) {
        const mine = ours.components!.schemas![name] as OpenAPIV3_1.SchemaObject | undefined;
        expect(mine, name).toBeDefined();
        const required = schema.required ?? [];
        expect(mine!.required ?? [], name).toEqual(expect.arrayContaining(required));
        for (const [property, real] of Object.entries(schema.properties ?? {})) {
          const ourProperty = mine!.properties?.[property];
          // A field we do not produce yet (participant data, media) must be one the real model lets a response leave out.
          if (ourProperty === undefined) expect(required, `${name}.${property} is required but we do not declare it`).not.toContain(property);
          else expect(shape(ourProperty, real), `${name}.${property}`).toEqual(shape(real));
          if (ourProperty !== undefined && 'format' in real && real.format) expect(formatOf(ourProperty), `${name}.${property}`).toBe(ourFormat(real.format));
        }
        for (const extra of Object.keys(mine!.properties ?? {}).filter((p) => !(p in (schema.properties ?? {})))) {
          expect((mine!.properties![extra] as Record<string, unknown>)['x-results-api-extension'], `${name}.${extra}`).toBe(true);
        }
      }
    }
  });

  it('serves none of the real operations still planned (implementing one means adding it to its fixture)', () => {
    for (const planned of contract.planned) {
      const item = ours.paths![planned.servedPath] as Record<string, unknown> | undefined;
      expect(item?.[planned.method], planned.operationId).toBeUndefined();
    }
  });

  it('the API guide maps every real operation to ours: implemented, or the issue that brings it', () => {
    const readme = readFileSync(fileURLToPath(new URL('../../docs/API.md', import.meta.url)), 'utf8');
    const named = (operationId: string) => `\`${operationId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\``;
    for (const { operationId } of contract.operations) expect(readme, operationId).toMatch(new RegExp(`${named(operationId)}[^\\n]*implemented`));
    for (const { operationId, issue } of contract.planned) expect(readme, operationId).toMatch(new RegExp(`${named(operationId)}[^\\n]*issue ${issue}\\b`));
  });
});
