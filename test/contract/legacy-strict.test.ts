/**
 * The Legacy v1 family, strictly: its real document marks nothing optional and nothing nullable,
 * so for a session whose import gave everything an import can give (with a transcript, a video,
 * a cut clip and a joined reel), every property the document describes must be present, in its
 * real type and format, on all seven operations. Runs on SQLite and, in the postgres project, on
 * PostgreSQL. What is still missing is listed in REMAINING (docs/PRODUCT.md says why), and the
 * test fails when the list is wrong in either direction.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { importVideo } from '../../src/media/import-video.js';
import { jobHandlers } from '../../src/serve/start-job-runner.js';
import type { TestPlan } from '../../src/store/store.js';
import { seedWorkspace, storeActor } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';
import { until } from '../helpers/until.js';
import { hasFfmpeg, makeVideo } from '../helpers/videos.js';
import { liveResponse, RealContract } from './real-contract.js';

const contract = new RealContract(['real-legacy-v1.json']);
const haveFfmpeg = hasFfmpeg();

/** Properties of the real document not yet given, by operation (each a path in the body). */
const REMAINING: Record<string, string[]> = {};

/** One task of every StudyTaskNode field, and an NPS task so that the study has a Net Promoter Score. */
const PLAN: TestPlan = {
  id: 'strict-plan',
  shortTest: false,
  taskGroups: [{ id: 'main', type: 'MAIN' }],
  tasks: [
    {
      text: 'Where are the ACME offices?', taskType: 'multiple_choice', taskGroupId: 'main', choices: ['Poland', 'Singapore'], multipleAnswers: true,
      grouping: 'INITIAL', launchUrl: 'https://shop.example.com', lowerEndpoint: 'Very difficult', upperEndpoint: 'Very easy',
      scaleMinimum: 1, scaleMaximum: 5, blurPII: false, resultType: '',
    },
    {
      text: 'How likely are you to recommend us?', taskType: 'nps', taskGroupId: 'main', choices: [], multipleAnswers: false, grouping: 'INITIAL',
      launchUrl: 'https://shop.example.com', lowerEndpoint: 'Not at all', upperEndpoint: 'Extremely', scaleMinimum: 0, scaleMaximum: 10, blurPII: false, resultType: '',
    },
  ],
};
const DEMOGRAPHICS = [
  ['AGE', '34'], ['CHILDREN', 'No children'], ['COMPANY_SIZE', '1,001-5,000 employees'], ['COUNTRY', 'United States'],
  ['EMPLOYMENT_STATUS', 'Employed full-time'], ['GENDER', 'Female'], ['INCOME', '$60,000 - $79,999'], ['INDUSTRY', 'Financial Services'],
  ['JOB_FUNCTION', 'Finance'], ['SENIORITY', 'Senior'], ['SOCIAL_NETWORKS', 'LinkedIn, Facebook'], ['WEB_EXPERTISE', 'Intermediate'],
].map(([code, value]) => ({ id: `q-${code}`, code, label: code, value, type: 'DEMOGRAPHIC_QUESTION_TYPE_SINGLE' }));
const VTT = 'WEBVTT\n\n00:00:00.500 --> 00:00:01.500\n<v Participant>Looking for the offices.</v>\n\n00:00:02.000 --> 00:00:02.800\nI would recommend it.\n';

const dir = mkdtempSync(join(tmpdir(), 'results-api-legacy-strict-'));
const { t, client } = await startSeededApp({ env: { MEDIA_URL: `file:${join(dir, 'media')}` } });
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
let runner: JobRunner | undefined;
let token: string;
const ids = { workspace: '', test: '', session: randomUUID(), clip: '', reelToken: '' };

beforeAll(async () => {
  if (!haveFfmpeg) return;
  ids.workspace = await seedWorkspace(t.runtime, [client.email]);
  ids.test = randomUUID();
  await t.runtime.store.directory.createTest(
    { id: ids.test, workspaceId: ids.workspace, title: 'Checkout', productType: 'THINK_OUT_LOUD', orderedAt: Date.UTC(2024, 5, 1), orderedBy: { email: 'rita@example.com', name: 'Rita' }, plan: PLAN },
    storeActor,
  );
  const details = {
    participant: { participantId: randomUUID(), name: 'participant@example.com', demographics: DEMOGRAPHICS },
    formFactorUsed: 'Computer',
    taskOrderingCondition: 'default',
    notes: 'Hesitated at checkout.',
    screenerResponses: [{ question: 'What country do you live in?', response: ['United States'] }],
    tasks: [
      { position: 1, startTimeMs: 0, endTimeMs: 1800, skipped: false, answer: { selected: ['Poland'] } },
      { position: 2, startTimeMs: 1800, endTimeMs: 3000, skipped: false, answer: { value: 9 } },
    ],
  };
  const record = { sessionId: ids.session, status: 'COMPLETE', startTime: '2024-11-21T12:00:00.000Z', finishTime: '2024-11-21T12:10:00.000Z', details };
  const parsed = parseSessionFile(JSON.stringify(record), 'ndjson', PLAN);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  await t.runtime.store.sessions.importSessions(ids.test, parsed.sessions, storeActor);
  await t.runtime.store.transcripts.importTranscripts(ids.test, [{ sessionId: ids.session, vtt: VTT }], storeActor);
  const file = await makeVideo(dir, 'session.mp4', { seconds: 3 });
  await importVideo({ ...t.runtime.store, storage: t.runtime.media.storage }, { sessionId: ids.session, file }, storeActor);
  const clip = await t.runtime.store.clips.createClip({ sessionId: ids.session, startMs: 0, endMs: 2000, name: 'Offices', description: 'Finds them at once', sentiment: 'positive' }, storeActor);
  const reel = await t.runtime.store.reels.createReel({ testId: ids.test, name: 'Highlights', clipIds: [clip.id] }, storeActor);
  ids.clip = clip.id;
  ids.reelToken = reel.token;
  runner = new JobRunner(t.runtime.store.jobs, jobHandlers(t.runtime), { concurrency: 1, leaseMs: 30_000, pollMs: 20, log: quiet });
  runner.start();
  // The reel is cut from the session video, not from the clip: either job may finish first.
  const made = async () => (await t.runtime.store.reels.findReel(reel.id))?.status === 'GENERATED' && (await t.runtime.store.clips.findClip(clip.id))?.status === 'GENERATED';
  await until('the clip and the reel are made', made, 90_000);
  token = await mintToken(t, client, 'B');
}, 120_000);

afterAll(async () => {
  await runner?.stop();
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const operations = () => [
  ['GET /usertesting/api/v1/workspaces', '/workspaces'],
  ['GET /usertesting/api/v1/workspaces/{workspaceUuid}', `/workspaces/${ids.workspace}`],
  ['GET /usertesting/api/v1/studies/{studyUuid}', `/studies/${ids.test}`],
  ['GET /usertesting/api/v1/studies/{studyUuid}/completed-sessions', `/studies/${ids.test}/completed-sessions`],
  ['GET /usertesting/api/v1/session/{sessionUuid}', `/session/${ids.session}`],
  ['GET /usertesting/api/v1/clip/{clipUuid}', `/clip/${ids.clip}`],
  ['GET /usertesting/api/v1/highlightreel/{highlightReelToken}', `/highlightreel/${ids.reelToken}`],
] as const;

describe.skipIf(!haveFfmpeg)('Legacy v1, strictly: every property of the real document, in its real type and format', () => {
  it('covers the seven operations of the real document', () => {
    expect(operations().map(([operationId]) => operationId).sort()).toEqual(contract.operations.map((o) => o.operationId).sort());
  });

  it.each([0, 1, 2, 3, 4, 5, 6])('operation %i', async (index) => {
    const [operationId, path] = operations()[index]!;
    const response = await liveResponse(await fetch(`${t.url}/usertesting/api/v1${path}`, { headers: authHeaders(token) }));
    expect(response.status, response.body).toBe(200);
    expect(contract.violations(operationId, response)).toEqual([]);
    expect(contract.missingProperties(operationId, JSON.parse(response.body)), operationId).toEqual(REMAINING[operationId] ?? []);
  });
});
