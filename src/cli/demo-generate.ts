import { performance } from 'node:perf_hooks';
import { demoAnswersEndMs, withDemoDetails } from '../details/demo-details.js';
import { withGeneratedVideos } from '../media/generated-videos.js';
import { releaseVideoObjects, type StoredVideoFile } from '../media/import-video.js';
import { parseTestPlan } from '../plans/test-plan.js';
import type { Runtime } from '../runtime.js';
import type { Actor, SessionInput, TestPlan } from '../store/store.js';
import { uuidV5 } from '../store/uuid.js';
import { demoTranscripts } from '../transcripts/demo-transcripts.js';
import { positiveIntegerArgument } from './arguments.js';
import { usageError } from './output.js';

/**
 * `demo --sessions N --tests M --seed S`: tests of realistic sessions at any scale, for
 * pipeline developers and benchmarks. Every id and value follows from the seed alone, so the
 * same command gives the same data on any machine, and running it again changes nothing.
 */

/** The namespace of the generated ids (name-based UUIDs: RFC 9562 §5.5). */
const GENERATED_NAMESPACE = 'a6c1f3e2-57b4-4d0a-9e1c-2b8d7f6a5c43';

/** Sessions written per transaction: each batch's rows, details and transcripts are in memory at once. */
export const GENERATE_BATCH = 5_000;

export interface GenerateOptions {
  sessions: number;
  tests: number;
  seed: number;
}

export interface GeneratedTest {
  testId: string;
  sessions: number;
}

/** What `demo` says of the generated data. */
export interface GeneratedSummary {
  seed: number;
  tests: GeneratedTest[];
  /** The distinct videos the sessions share (by their SHA-256); empty without ffmpeg. */
  videos: string[];
  sessionsPerSecond: number;
}

/** The id of the `index`-th generated test of `seed`. */
export const generatedTestId = (seed: number, index: number): string => uuidV5(GENERATED_NAMESPACE, `seed/${seed}/test/${index}`);

/** How many of `total` sessions the `index`-th of `tests` tests holds: as even as can be, the first ones one more. */
export const sessionsOfTest = (total: number, tests: number, index: number): number =>
  Math.floor(total / tests) + (index < total % tests ? 1 : 0);

/** mulberry32: a small, fast 32-bit generator; the same seed gives the same numbers everywhere. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Most sessions complete; the others are stored and counted, as a real test's are. */
const STATUS_WEIGHTS: [string, number][] = [['COMPLETE', 0.7], ['IN_PROGRESS', 0.1], ['ABANDONED', 0.1], ['SCREENED_OUT', 0.1]];
const YEAR_MS = 365 * 24 * 3_600_000;
const FIRST_START = Date.UTC(2024, 0, 1);

function statusOf(roll: number): string {
  let sum = 0;
  for (const [status, weight] of STATUS_WEIGHTS) if (roll < (sum += weight)) return status;
  return 'COMPLETE';
}

/**
 * Sessions `first` to `first + count - 1` of a generated test: ids named by the test and the
 * position, starts over a year, a few audiences (and none), 4 to 30 minutes long.
 */
export function generatedSessions(testId: string, random: () => number, first: number, count: number): SessionInput[] {
  const audiences = [1, 2, 3].map((n) => uuidV5(GENERATED_NAMESPACE, `test/${testId}/audience/${n}`));
  return Array.from({ length: count }, (_, at) => {
    const status = statusOf(random());
    const startTime = FIRST_START + Math.floor(random() * YEAR_MS);
    const audience = Math.floor(random() * 4);
    return {
      sessionId: uuidV5(GENERATED_NAMESPACE, `test/${testId}/session/${first + at}`),
      audienceId: audience === 3 ? null : audiences[audience]!,
      status,
      startTime,
      finishTime: status === 'IN_PROGRESS' ? null : startTime + Math.floor((4 + random() * 26) * 60_000),
    };
  });
}

/**
 * Creates (or finds) the generated tests in `workspaceId`, each with the demo's plan under its
 * own UUIDs, and writes their sessions a batch per transaction: details of every task type
 * with demographics, transcripts for three in four completed sessions, and for every session
 * one of `videos` by reference (the `n`-th session the `n`-th modulo their number; a session
 * that has a video keeps it). `onBatch` hears of every batch written (for progress).
 */
export async function generateDemoTests(
  rt: Pick<Runtime, 'store'>,
  by: Actor,
  input: { workspaceId: string; planFile: unknown; options: GenerateOptions; videos: readonly StoredVideoFile[]; onBatch?: (written: number) => void },
): Promise<GeneratedTest[]> {
  const { store } = rt;
  const { options, videos } = input;
  const tests: GeneratedTest[] = [];
  for (let index = 0; index < options.tests; index++) {
    const testId = generatedTestId(options.seed, index);
    const plan: TestPlan = parseTestPlan(input.planFile, testId);
    if (!(await store.directory.getTest(testId))) {
      const title = `Generated test ${index + 1} of ${options.tests} (seed ${options.seed})`;
      await store.directory.createTest({ id: testId, workspaceId: input.workspaceId, title, productType: 'NON_THINK_OUT_LOUD', plan }, by);
    }
    const count = sessionsOfTest(options.sessions, options.tests, index);
    // One sequence per test, so a test's data does not depend on how many tests come before it.
    const random = seededRandom(Number.parseInt(testId.slice(0, 8), 16) ^ options.seed);
    for (let first = 0; first < count; first += GENERATE_BATCH) {
      const batch = withDemoDetails(generatedSessions(testId, random, first, Math.min(GENERATE_BATCH, count - first)), plan, first);
      await store.sessions.importSessions(testId, batch, by);
      await store.transcripts.importTranscripts(testId, demoTranscripts(plan, batch, first), by);
      for (const [v, video] of videos.entries()) {
        const sessionIds = batch.filter((_, at) => (first + at) % videos.length === v).map((s) => s.sessionId);
        if (sessionIds.length > 0) await store.videos.attachVideo(testId, sessionIds, video.objects, by, video.ensureStored);
      }
      input.onBatch?.(batch.length);
    }
    tests.push({ testId, sessions: count });
  }
  return tests;
}

/**
 * The generated tests, their sessions written in batches, with progress on a terminal; with
 * ffmpeg, a few videos made for the run and shared by every session (src/media/generated-videos.ts).
 */
export async function generateDemoData(
  rt: Pick<Runtime, 'store' | 'media'>,
  by: Actor,
  input: { workspaceId: string; planFile: unknown; options: GenerateOptions },
): Promise<GeneratedSummary> {
  const { options } = input;
  const started = performance.now();
  let written = 0;
  const onBatch = (count: number) => {
    written += count;
    if (process.stderr.isTTY) process.stderr.write(`\rgenerated ${written.toLocaleString('en-US')} of ${options.sessions.toLocaleString('en-US')} sessions`);
  };
  // Long enough for every answer's time window, so each answer's link starts inside its video.
  const seconds = Math.ceil(demoAnswersEndMs(parseTestPlan(input.planFile, generatedTestId(options.seed, 0))) / 1000) + 15;
  const { tests, videos } = await withGeneratedVideos(rt.media.storage, { seed: options.seed, seconds }, async (made) => {
    if (!made) process.stderr.write('warning: ffmpeg is not installed, so the generated sessions have no video (apt-get install ffmpeg)\n');
    const videos = made ?? [];
    const tests = await generateDemoTests(rt, by, { ...input, videos, onBatch });
    // A video no session took (every session had one already) leaves no object behind.
    await releaseVideoObjects({ videos: rt.store.videos, storage: rt.media.storage }, videos.flatMap((v) => [v.objects.objectKey, v.objects.posterKey]));
    return { tests, videos: videos.map((v) => v.objects.contentSha256) };
  });
  if (process.stderr.isTTY) process.stderr.write('\n');
  const elapsed = (performance.now() - started) / 1000;
  return { seed: options.seed, tests, videos, sessionsPerSecond: Math.round(options.sessions / Math.max(elapsed, 0.001)) };
}

/** The largest generated data set: ten million sessions, in up to ten thousand tests. */
const MAX_GENERATED_SESSIONS = 10_000_000;
const MAX_GENERATED_TESTS = 10_000;

/** --sessions, --tests and --seed, when any is given (the others then take their defaults). */
export function generateOptions(options: { sessions?: string; tests?: string; seed?: string }): GenerateOptions | undefined {
  if (options.sessions === undefined && options.tests === undefined && options.seed === undefined) return undefined;
  const generate = {
    sessions: options.sessions === undefined ? 1000 : positiveIntegerArgument('--sessions', options.sessions, MAX_GENERATED_SESSIONS),
    tests: options.tests === undefined ? 1 : positiveIntegerArgument('--tests', options.tests, MAX_GENERATED_TESTS),
    seed: options.seed === undefined ? 1 : positiveIntegerArgument('--seed', options.seed, 2 ** 31 - 1),
  };
  if (generate.tests > generate.sessions) throw usageError(`--tests (${generate.tests}) must be at most --sessions (${generate.sessions}): every test gets sessions`);
  return generate;
}

/** The generated tests, one a line. */
export const generatedText = (g: GeneratedSummary): string =>
  [
    `Generated with seed ${g.seed} (${g.sessionsPerSecond.toLocaleString('en-US')} sessions/s), in the same workspace` +
      (g.videos.length > 0 ? `, every session with one of ${g.videos.length} shared videos:` : ', without videos (no ffmpeg):'),
    ...g.tests.map((t) => `  test ${t.testId}: ${t.sessions.toLocaleString('en-US')} sessions`),
  ].join('\n');
