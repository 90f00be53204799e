import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DEMO_TEST_PLAN } from '../../src/cli/demo.js';
import { generatedTestId } from '../../src/cli/demo-generate.js';
import { demoAnswersEndMs, withDemoDetails } from '../../src/details/demo-details.js';
import { GENERATED_VIDEO_COUNT } from '../../src/media/generated-videos.js';
import type { Store } from '../../src/store/open-store.js';
import { isUuid } from '../../src/store/uuid.js';
import { openSqliteStore } from '../helpers/stores.js';
import { hasFfmpeg } from '../helpers/videos.js';
import { cliSandbox, type CliSandbox } from './run-cli.js';

/**
 * `demo --sessions N --tests M --seed S` (issue 31 item 6): realistic data at any scale, the
 * same for the same seed on any machine, valid against the plan it was made for.
 */

interface Generated {
  generated: { seed: number; tests: { testId: string; sessions: number }[]; videos: string[]; sessionsPerSecond: number };
}

/** Everything a test holds that the seed decides: its sessions in list order, their details, transcripts and videos (by content). */
async function contentsOf(store: Store, testId: string): Promise<unknown> {
  const sessions = await store.sessions.listSessions(testId, 0, 10_000);
  const details = await store.sessionDetails.listDetails(sessions.map((s) => s.sessionId));
  const transcripts = await Promise.all(sessions.slice(0, 50).map((s) => store.transcripts.findTranscript(s.sessionId)));
  const videos = (await store.videos.listVideos(testId)).map((v) => [v.sessionId, v.objectKey, v.posterKey, v.durationMs]);
  return { sessions, details: [...details.entries()], transcripts, videos, plan: (await store.directory.getTest(testId))?.plan };
}

/** Every file under the sandbox's media directory (MEDIA_URL's default, ./data/media). */
const mediaFiles = (cli: CliSandbox): string[] =>
  readdirSync(join(cli.dir, 'data', 'media'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)).sort();

describe('demo --sessions --tests --seed', () => {
  const sandboxes: CliSandbox[] = [];
  const stores: Store[] = [];
  let first: Generated;

  /** Runs the generator in a sandbox of its own, and opens its database. */
  async function generate(args: string[]): Promise<{ cli: CliSandbox; result: Generated; store: Store }> {
    const cli = cliSandbox();
    sandboxes.push(cli);
    const run = await cli.run(['demo', '--json', ...args], { PORT: '1' });
    expect(run.code, run.stderr).toBe(0);
    const store = await openSqliteStore(cli.databaseUrl.slice('sqlite:'.length), new ManualClock());
    stores.push(store);
    return { cli, result: JSON.parse(run.stdout) as Generated, store };
  }

  let a: Awaited<ReturnType<typeof generate>>;
  beforeAll(async () => {
    a = await generate(['--sessions', '301', '--tests', '2', '--seed', '42']);
    first = a.result;
  }, 180_000);
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.database.close()));
    for (const cli of sandboxes) cli.cleanup();
  });

  it('spreads the sessions over the tests, whose ids follow from the seed', () => {
    expect(first.generated).toEqual({
      seed: 42,
      tests: [
        { testId: generatedTestId(42, 0), sessions: 151 },
        { testId: generatedTestId(42, 1), sessions: 150 },
      ],
      videos: hasFfmpeg() ? expect.arrayContaining([expect.stringMatching(/^[0-9a-f]{64}$/)]) : [],
      sessionsPerSecond: expect.any(Number),
    });
  });

  it('gives the same data for the same seed in another database, and other data for another seed', async () => {
    const b = await generate(['--sessions', '301', '--tests', '2', '--seed', '42']);
    for (const { testId } of first.generated.tests) expect(await contentsOf(b.store, testId)).toEqual(await contentsOf(a.store, testId));
    const c = await generate(['--sessions', '301', '--seed', '43']);
    expect(c.result.generated.tests[0]!.testId).not.toBe(first.generated.tests[0]!.testId);
  }, 300_000);

  it('writes nothing new when run again with the same seed, and stores no video twice', async () => {
    const testId = first.generated.tests[0]!.testId;
    const before = await contentsOf(a.store, testId);
    const files = mediaFiles(a.cli);
    const again = await a.cli.run(['demo', '--json', '--sessions', '301', '--tests', '2', '--seed', '42'], { PORT: '1' });
    expect(again.code).toBe(0);
    expect(await contentsOf(a.store, testId)).toEqual(before);
    expect(mediaFiles(a.cli)).toEqual(files);
  }, 120_000);

  it.skipIf(!hasFfmpeg())('gives every session one of a few shared videos, each stored once with its poster and long enough for every answer', async () => {
    expect(first.generated.videos).toHaveLength(GENERATED_VIDEO_COUNT);
    expect(new Set(first.generated.videos).size).toBe(GENERATED_VIDEO_COUNT);
    const plan = (await a.store.directory.getTest(first.generated.tests[0]!.testId))!.plan!;
    const videos = (await Promise.all(first.generated.tests.map((t) => a.store.videos.listVideos(t.testId)))).flat();
    expect(videos).toHaveLength(301);
    const objects = new Set(videos.map((v) => v.objectKey));
    expect([...new Set(videos.map((v) => v.contentSha256))].sort()).toEqual([...first.generated.videos].sort());
    expect(objects.size).toBe(GENERATED_VIDEO_COUNT);
    for (const v of videos) {
      expect(v.posterKey).not.toBeNull();
      expect(v.durationMs).toBeGreaterThanOrEqual(demoAnswersEndMs(plan));
    }
    // Stored once each: four videos and four posters, beside the plain demo's own video and poster.
    const files = mediaFiles(a.cli);
    for (const key of [...objects, ...videos.map((v) => v.posterKey!)]) expect(existsSync(join(a.cli.dir, 'data', 'media', key)), key).toBe(true);
    expect(files).toHaveLength(2 * GENERATED_VIDEO_COUNT + 2);
  });

  it('writes valid, realistic sessions: UUIDs, every status, details of every task type with demographics, transcripts', async () => {
    const test = await a.store.directory.getTest(first.generated.tests[0]!.testId);
    expect(test!.plan!.id).not.toBe(DEMO_TEST_PLAN.id); // the demo plan, under the test's own UUIDs
    const sessions = await a.store.sessions.listSessions(test!.id, 0, 1000, {});
    expect(new Set(sessions.map((s) => s.status))).toEqual(new Set(['COMPLETE', 'IN_PROGRESS', 'ABANDONED', 'SCREENED_OUT']));
    expect(sessions.every((s) => isUuid(s.sessionId) && (s.audienceId === null || isUuid(s.audienceId)))).toBe(true);
    const completed = sessions.filter((s) => s.status === 'COMPLETE');
    const details = await a.store.sessionDetails.listDetails(completed.map((s) => s.sessionId));
    for (const document of details.values()) {
      const d = document as { participant: { demographics: unknown[] }; tasks: unknown[] };
      expect(d.participant.demographics).toHaveLength(2);
      expect(d.tasks).toHaveLength(test!.plan!.tasks.length);
    }
    const transcribed = await Promise.all(completed.map((s) => a.store.transcripts.findTranscript(s.sessionId)));
    expect(transcribed.filter((t) => t !== null).length).toBeGreaterThan(completed.length / 2);
  });

  it('refuses bad numbers before writing anything (exit 2)', async () => {
    for (const args of [['--sessions', '0'], ['--sessions', '1.5'], ['--tests', '3', '--sessions', '2'], ['--seed', 'x']]) {
      const run = await a.cli.run(['demo', ...args], { PORT: '1' });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/^error: --(sessions|tests|seed)/);
    }
  });
});

describe("the demo participants' answers", () => {
  it('repeat with their period: a participant built from the cache equals one checked afresh', () => {
    const sessions = Array.from({ length: 3 }, (_, i) => ({
      sessionId: `0000000${i}-0000-4000-8000-000000000000`,
      audienceId: null,
      status: 'COMPLETE',
      startTime: 0,
      finishTime: 1,
    }));
    const [cached] = withDemoDetails(sessions.slice(0, 1), DEMO_TEST_PLAN, 4620 * 3 + 17);
    const raw = withDemoDetails(sessions.slice(0, 1), { ...DEMO_TEST_PLAN }, 17);
    expect(cached!.details).toEqual(raw[0]!.details);
  });
});
