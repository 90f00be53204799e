/**
 * What the Legacy (v1) family shows beyond the answers: what only an import knows (participant
 * with demographics, form factor, task order, screener responses, notes: NDJSON and CSV), and
 * what the service computes (each answer's transcript from the cues in its window and a link to
 * the video at its start, the session's numeric id, place and poster).
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import { legacyNumericId } from '../../src/legacy/numeric-id.js';
import type { SessionInput } from '../../src/store/store.js';
import { DETAILS_PLAN, detailsInput, PARTICIPANT_A } from '../helpers/details.js';
import { seedWorkspace, storeActor } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';

const id = (n: number) => `5e55de7a-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const record = (n: number, details?: Record<string, unknown>) => ({
  sessionId: id(n),
  audienceId: null,
  status: 'COMPLETE',
  startTime: new Date(Date.UTC(2024, 10, 21, 12, n)).toISOString(),
  finishTime: new Date(Date.UTC(2024, 10, 21, 13, n)).toISOString(),
  ...(details ? { details } : {}),
});

const FACTS = {
  formFactorUsed: 'Computer',
  taskOrderingCondition: 'default',
  notes: 'Hesitated at checkout.',
  screenerResponses: [{ question: 'What country do you live in?', response: ['United States'] }],
};
const demographic = (code: string, value: string) => ({ id: `q-${code}`, code, label: code, value, type: 'DEMOGRAPHIC_QUESTION_TYPE_SINGLE' });
const PARTICIPANT = {
  participantId: '41f72104-5f84-44fa-a16a-03f575159611',
  name: 'participant@example.com',
  demographics: [
    demographic('AGE', '34'),
    demographic('CHILDREN', 'No children'),
    demographic('COMPANY_SIZE', '1,001-5,000 employees'),
    demographic('COUNTRY', 'United States'),
    demographic('EMPLOYMENT_STATUS', 'Employed full-time'),
    demographic('GENDER', 'Female'),
    demographic('INCOME', '$60,000 - $79,999'),
    demographic('INDUSTRY', 'Financial Services'),
    demographic('JOB_FUNCTION', 'Finance'),
    demographic('SENIORITY', 'Senior'),
    demographic('SOCIAL_NETWORKS', 'LinkedIn, Facebook'),
    demographic('WEB_EXPERTISE', 'Intermediate'),
    demographic('FAVOURITE_COLOUR', 'Blue'),
  ],
};
/** Task 1 is answered from 10 s to 15 s, task 3 from 30 s to 35 s (detailsInput). */
const VTT = [
  'WEBVTT',
  '',
  '00:00:09.000 --> 00:00:11.000',
  '<v Participant>I am looking for</v>',
  '',
  '00:00:12.000 --> 00:00:14.500',
  'pricing &amp; plans.',
  '',
  '00:00:20.000 --> 00:00:22.000',
  'Between the answers.',
  '',
].join('\n');

const { t, client } = await startSeededApp({ env: { RATE_LIMIT_API: '100000', RATE_LIMIT_TOKEN_CLIENT: '100000' } });
const dir = mkdtempSync(join(tmpdir(), 'results-api-legacy-facts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let testId: string;
let token: string;

beforeAll(async () => {
  const workspaceId = await seedWorkspace(t.runtime, [client.email]);
  testId = randomUUID();
  await t.runtime.store.directory.createTest({ id: testId, workspaceId, title: 'Checkout', productType: 'NON_THINK_OUT_LOUD', plan: DETAILS_PLAN }, storeActor);
  const ndjson = [
    record(1, { ...detailsInput({ 1: { success: true }, 3: { value: 4 } }), participant: PARTICIPANT, ...FACTS }),
    record(2, detailsInput({ ...PARTICIPANT_A })),
    record(3),
  ].map((r) => JSON.stringify(r)).join('\n');
  const parsed = parseSessionFile(ndjson, 'ndjson', DETAILS_PLAN);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  // The same facts through CSV: `details` is a JSON column.
  const csvDetails = JSON.stringify({ notes: 'From a spreadsheet.', formFactorUsed: 'Smartphone' }).replace(/"/g, '""');
  const csv = `sessionId,audienceId,status,startTime,finishTime,details\n${id(4)},,COMPLETE,2024-11-21T12:04:00.000Z,2024-11-21T13:04:00.000Z,"${csvDetails}"\n`;
  const parsedCsv = parseSessionFile(csv, 'csv', DETAILS_PLAN);
  if (!parsedCsv.ok) throw new Error(JSON.stringify(parsedCsv.errors));
  await t.runtime.store.sessions.importSessions(testId, [...parsed.sessions, ...parsedCsv.sessions] as SessionInput[], storeActor);
  await t.runtime.store.transcripts.importTranscripts(testId, [{ sessionId: id(1), vtt: VTT }], storeActor);
  const file = join(dir, 'video.mp4');
  writeFileSync(file, 'not decoded by this test');
  // Stored as `videos import` stores one (its keys named as import-video names them), without decoding it.
  const video = { objectKey: `videos/${id(1)}/video.mp4`, posterKey: `videos/${id(1)}/video.poster.jpg` };
  await t.runtime.media.storage.putFile(video.objectKey, file, 'video/mp4');
  await t.runtime.media.storage.putFile(video.posterKey, file, 'image/jpeg');
  await t.runtime.store.videos.saveVideo(
    { sessionId: id(1), ...video, contentSha256: 'a'.repeat(64), contentType: 'video/mp4', sizeBytes: 24, durationMs: 60_000, width: 320, height: 240, hasAudio: true, regions: { screen: { topLeftPoint: { x: 0, y: 0 }, widthPx: 320, heightPx: 240 } } },
    storeActor,
  );
  token = await mintToken(t, client, 'B');
});

const json = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${t.url}/usertesting/api/v1${path}`, { headers: authHeaders(token) });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
};
type Row = Record<string, unknown> & { sessionUuid: string; answers: Record<string, unknown>[] };
const rows = async () => new Map((await json<{ sessions: Row[] }>(`/studies/${testId}/completed-sessions`)).sessions.map((s) => [s.sessionUuid, s]));

describe('completed sessions: what the import gave and what the service computes', () => {
  it('the participant with the real demographics keys, form factor, task order, screener responses and numeric sessionId', async () => {
    const row = (await rows()).get(id(1))!;
    expect(row.sessionId).toBe(legacyNumericId(id(1)));
    expect(row.participant).toEqual({
      name: 'participant@example.com',
      demographics: {
        age: 34,
        children: ['No children'],
        companySize: '1,001-5,000 employees',
        country: 'United States',
        employmentStatus: 'Employed full-time',
        gender: 'Female',
        income: '$60,000 - $79,999',
        industry: 'Financial Services',
        jobFunction: 'Finance',
        seniority: 'Senior',
        socialNetworks: ['LinkedIn', 'Facebook'],
        webExpertise: 'Intermediate',
      },
    });
    expect(row).toMatchObject({ formFactorUsed: 'Computer', taskOrderingCondition: 'default', screenerResponses: FACTS.screenerResponses });
    expect(row).not.toHaveProperty('notes');
  });

  it("each answer's transcript is what was said in its window; its url the video from its start", async () => {
    const [first, third] = (await rows()).get(id(1))!.answers;
    expect(first).toMatchObject({ position: 1, time: 10, transcript: 'I am looking for pricing & plans.' });
    expect(third).toMatchObject({ position: 3, time: 30, transcript: '' });
    const url = new URL(first!.url as string);
    expect(url.hash).toBe('#t=10');
    expect(new URL(third!.url as string).hash).toBe('#t=30');
    // The signed link opens the session's video.
    const video = await fetch(`${t.url}${url.pathname}${url.search}`);
    expect(video.status).toBe(200);
    expect(await video.text()).toBe('not decoded by this test');
  });

  it('a session without transcript, video or imported facts leaves them out; CSV carries the facts too', async () => {
    const all = await rows();
    const plain = all.get(id(2))!;
    expect(plain.answers.length).toBeGreaterThan(0);
    for (const answer of plain.answers) {
      expect(answer).not.toHaveProperty('transcript');
      expect(answer).not.toHaveProperty('url');
    }
    expect(plain).not.toHaveProperty('formFactorUsed');
    expect(plain.screenerResponses).toEqual([]);
    expect(plain.participant).toEqual({ demographics: { gender: 'Female' } });
    expect(all.get(id(3))).not.toHaveProperty('participant');
    expect(all.get(id(4))).toMatchObject({ formFactorUsed: 'Smartphone', answers: [] });
  });
});

describe('session/{uuid}', () => {
  it('numeric sessionId as text, sequenceNumber, imported notes and the video poster', async () => {
    const session = await json<Record<string, unknown>>(`/session/${id(1)}`);
    expect(session).toMatchObject({ uid: id(1), sessionId: String(legacyNumericId(id(1))), sequenceNumber: 1, notes: 'Hesitated at checkout.' });
    const posterLink = new URL(session.securePoster as string);
    const poster = await fetch(`${t.url}${posterLink.pathname}${posterLink.search}`);
    expect(poster.status).toBe(200);
    expect(poster.headers.get('content-type')).toBe('image/jpeg');
    // Read to the end: a response left unread keeps its connection busy, and closing the app waits for it.
    expect(await poster.text()).toBe('not decoded by this test');
    const csv = await json<Record<string, unknown>>(`/session/${id(4)}`);
    expect(csv).toMatchObject({ sequenceNumber: 4, notes: 'From a spreadsheet.' });
    expect(csv).not.toHaveProperty('securePoster');
  });
});
