import { execFile, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import { importVideo } from '../../src/media/import-video.js';
import { DETAILS_PLAN, detailsInput, OTHER_ANSWERS, PARTICIPANT_A, PARTICIPANT_B, PARTICIPANT_C } from '../helpers/details.js';
import { rendered, seed, seedWorkspace, storeActor, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { makeVideo } from '../helpers/videos.js';
import { clientFor } from './helpers.js';

/** The transcript the live suite reads back, non-ASCII included: WebVTT is UTF-8. */
const TRANSCRIPT = 'WEBVTT\n\n00:00:00.000 --> 00:00:02.500\nJe clique sur « Suivant », puis ça charge.\n';

/**
 * The Python client (clients/python) as its users get it: installed with pip, offline, from
 * the repository; then its unit suite (a scripted local stub) and its live suite (this
 * repository's real server) run with Debian's interpreter and packages, which .ci/run installs.
 */
const PYTHON = '/usr/bin/python3';
const PACKAGE = fileURLToPath(new URL('../../clients/python/', import.meta.url));
const IN_CI = process.env.CI === 'true';
/** No Python step may wait forever: pip, or a suite, that hangs fails the test. */
const STEP_TIMEOUT_MS = 120_000;

/** Why the Python client cannot be tested here, or undefined when it can. */
function missingPython(): string | undefined {
  if (!existsSync(PYTHON)) return `no ${PYTHON}`;
  const probe = spawnSync(PYTHON, ['-c', 'import pip, requests, pandas'], { encoding: 'utf8', timeout: 30_000 });
  if (probe.status !== 0) return `${PYTHON} lacks pip, requests or pandas (${probe.stderr.trim().split('\n').pop()})`;
  return undefined;
}

const missing = missingPython();
const HOW_TO_INSTALL = 'apt-get install -y python3-pip python3-requests python3-pandas';
if (missing && !IN_CI) {
  console.warn(`\n⚠ SKIPPED test/client/python-client.test.ts: ${missing}. Install Debian's packages: \`${HOW_TO_INSTALL}\`.\n`);
}

interface Run {
  code: number;
  output: string;
}

/** Runs Debian's python3 without blocking the event loop (the live suite talks to this process's server). */
function python(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      PYTHON,
      args,
      {
        cwd: options.cwd,
        // Only what the suites need: no user site-packages or PYTHONPATH leaking in from the shell.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir(), PYTHONNOUSERSITE: '1', ...options.env },
        timeout: STEP_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** `python -m unittest` output of a run where every test ran and passed (none skipped). */
function expectAllPassed(run: Run, atLeast: number): void {
  expect(run.output, run.output).toMatch(/^OK$/m);
  expect(run.code, run.output).toBe(0);
  expect(run.output).not.toMatch(/skipped/);
  const ran = Number(/^Ran (\d+) tests? in/m.exec(run.output)?.[1] ?? 0);
  expect(ran).toBeGreaterThanOrEqual(atLeast);
}

// In CI a missing interpreter or package must fail the suite, never skip it.
describe.skipIf(missing !== undefined && !IN_CI)('the Python client', { timeout: STEP_TIMEOUT_MS }, () => {
  let site: string;

  beforeAll(async () => {
    if (missing) throw new Error(`${missing}; CI=true, so this fails instead of skipping. Install: ${HOW_TO_INSTALL}`);
    // `pip install ./clients/python` with no index: the in-tree build backend needs nothing from
    // PyPI. --no-deps: requests and pandas are Debian's, already on the interpreter's path.
    site = mkdtempSync(join(tmpdir(), 'results-api-python-'));
    const install = await python(['-m', 'pip', 'install', '--no-index', '--no-deps', '--no-cache-dir', '--target', site, PACKAGE], {
      cwd: site,
    });
    expect(install.code, install.output).toBe(0);
  });
  afterAll(() => {
    if (site) rmSync(site, { recursive: true, force: true });
  });

  /** Runs a suite of clients/python/tests against the installed package (not the source tree). */
  const suite = (name: 'unit' | 'live', env: Record<string, string> = {}): Promise<Run> => {
    const dir = join(PACKAGE, 'tests', name);
    return python(['-m', 'unittest', 'discover', '-v', '-s', dir, '-t', dir], {
      cwd: site,
      env: { PYTHONPATH: site, PYTHONDONTWRITEBYTECODE: '1', ...env },
    });
  };

  it('installs with pip from the repository, offline, as a pure-Python wheel', async () => {
    const where = await python(['-c', 'import results_api_client, requests; print(results_api_client.__file__)'], {
      cwd: site,
      env: { PYTHONPATH: site },
    });
    expect(where.code, where.output).toBe(0);
    expect(where.output.trim()).toBe(join(site, 'results_api_client', '__init__.py'));
  });

  it('passes its unit suite (retries, Retry-After, timeouts, token refresh, 401 re-mint, paging, to_dataframe, transcripts, details)', async () => {
    expectAllPassed(await suite('unit'), 57);
  });

  describe('against the real server', () => {
    let t: TestApp;
    let s: Seeded;
    /** A test with a plan whose sessions carry details, in a second workspace of the same user. */
    let detailsTestId: string;
    /** What the TypeScript SDK answers for it, which the Python client must answer alike. */
    let fromTypeScript: { pairs: unknown[]; qxScores: unknown };
    let clip: { id: string };
    let reel: { id: string };

    beforeAll(async () => {
      t = await startTestApp();
      s = await seed(t.runtime, { sessions: 23 });
      const videos = mkdtempSync(join(tmpdir(), 'results-api-python-video-'));
      try {
        const video = await makeVideo(videos, 'session.mp4', { seconds: 1 });
        await importVideo({ ...t.runtime.store, storage: t.runtime.media.storage }, { sessionId: s.sessions[0]!.sessionId, file: video }, storeActor);
        clip = await t.runtime.store.clips.createClip({ sessionId: s.sessions[0]!.sessionId, startMs: 0, endMs: 500, name: 'Python' }, storeActor);
        reel = await t.runtime.store.reels.createReel({ testId: s.testId, name: 'Python reel', clipIds: [clip.id] }, storeActor);
      } finally {
        rmSync(videos, { recursive: true, force: true });
      }
      await t.runtime.store.transcripts.importTranscripts(s.testId, [{ sessionId: s.sessions[1]!.sessionId, vtt: TRANSCRIPT }], storeActor);

      const workspaceId = await seedWorkspace(t.runtime, [s.email], 'Details');
      detailsTestId = randomUUID();
      await t.runtime.store.directory.createTest({ id: detailsTestId, workspaceId, title: 'QX', productType: 'NON_THINK_OUT_LOUD', plan: DETAILS_PLAN }, storeActor);
      const answers = [PARTICIPANT_A, PARTICIPANT_B, PARTICIPANT_C];
      const lines = Array.from({ length: 11 }, (_, i) =>
        JSON.stringify({
          sessionId: randomUUID(),
          status: 'COMPLETE',
          startTime: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
          finishTime: new Date(Date.UTC(2024, 0, 1, 1, i)).toISOString(),
          details: detailsInput({ ...answers[i % 3], ...OTHER_ANSWERS }),
        }),
      );
      const parsed = parseSessionFile(lines.join('\n'), 'ndjson', DETAILS_PLAN);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      await t.runtime.store.sessions.importSessions(detailsTestId, parsed.sessions, storeActor);
      const sdk = clientFor(t, s, 'B');
      const pairs: unknown[] = [];
      for await (const pair of sdk.sessionsWithDetails(detailsTestId)) pairs.push(pair);
      fromTypeScript = { pairs, qxScores: await sdk.qxScores(detailsTestId) };
    });
    afterAll(() => t?.close());

    it('passes its live suite in both forms', async () => {
      const run = await suite('live', {
        RESULTS_API_LIVE_URL: t.url,
        RESULTS_API_LIVE_CLIENT_ID: s.clientId,
        RESULTS_API_LIVE_CLIENT_SECRET: s.clientSecret,
        RESULTS_API_LIVE_SERVER_ID: t.runtime.servers.custom.id,
        RESULTS_API_LIVE_WORKSPACE_ID: s.workspaceId,
        RESULTS_API_LIVE_TEST_ID: s.testId,
        RESULTS_API_LIVE_SESSIONS: JSON.stringify(s.sessions.map(rendered)),
        RESULTS_API_LIVE_VIDEO_SESSION: s.sessions[0]!.sessionId,
        RESULTS_API_LIVE_TRANSCRIPT_SESSION: s.sessions[1]!.sessionId,
        RESULTS_API_LIVE_TRANSCRIPT: TRANSCRIPT,
        RESULTS_API_LIVE_DETAILS_TEST_ID: detailsTestId,
        RESULTS_API_LIVE_DETAILS: JSON.stringify(fromTypeScript),
        RESULTS_API_LIVE_CLIP: clip.id,
        RESULTS_API_LIVE_REEL: reel.id,
      });
      expectAllPassed(run, 19);
    });
  });
});
