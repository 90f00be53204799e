/**
 * The "done when" of the real contract: a client generated with stock tools from the fixtures
 * of the real documents (openapi-typescript types, openapi-fetch calls, oauth4webapi sign-in)
 * type-checks and runs unchanged against our server: it discovers the caller's tests through
 * Legacy v1 and pages every completed session of each through Results v2.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInput } from '../../src/store/store.js';
import { completedOnly, makeSessions, rendered, seed, seedTest, seedWorkspace, storeActor } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { fixturePath, REAL_FIXTURES } from './real-contract.js';
import { freePort } from '../helpers/net.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT_SCRIPT = fileURLToPath(new URL('clients/page-completed-sessions.mjs', import.meta.url));
const EVERY_OPERATION_SCRIPT = fileURLToPath(new URL('clients/reach-every-operation.mjs', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** Runs a command to its end (bounded); resolves with its exit code and output. */
function run(file: string, args: string[], env: Record<string, string> = {}, timeoutMs = 120_000) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

/** Under the repository (gitignored), so the script resolves openapi-fetch and oauth4webapi from node_modules. */
const artifacts = join(ROOT, 'test-artifacts');
let dir: string;
const port = await freePort();
const { t, client } = await startSeededApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
/** The tests the client's user can see, by workspace (its workspaces oldest first). */
let tests: { testId: string; stored: SessionInput[] }[];
let foreignTestId: string;

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  dir = mkdtempSync(join(artifacts, 'generated-client-'));
  for (const fixture of REAL_FIXTURES) {
    const types = astToString(await openapiTS(pathToFileURL(fixturePath(fixture))));
    writeFileSync(join(dir, fixture.replace(/\.json$/, '.d.ts')), types);
  }
  copyFileSync(CLIENT_SCRIPT, join(dir, 'page-completed-sessions.mjs'));
  copyFileSync(EVERY_OPERATION_SCRIPT, join(dir, 'reach-every-operation.mjs'));

  const statuses = ['COMPLETE', 'IN_PROGRESS', 'COMPLETE', 'ABANDONED', 'COMPLETE', 'COMPLETE', 'SCREENED_OUT'];
  tests = [];
  const lab = await seedWorkspace(t.runtime, [client.email], 'Lab');
  for (const count of [230, 0, 5]) {
    const stored = makeSessions(count, { tiesEvery: 5, statuses });
    tests.push({ testId: await seedTest(t.runtime, lab, stored), stored });
  }
  // A second workspace with more studies than a page of the v1 listing (50) holds.
  const field = await seedWorkspace(t.runtime, [client.email], 'Field');
  for (let i = 0; i < 52; i++) {
    const stored = makeSessions(i === 51 ? 9 : 0, { statuses });
    tests.push({ testId: await seedTest(t.runtime, field, stored), stored });
  }
  foreignTestId = (await seed(t.runtime, { sessions: 4 })).testId; // another team's test, never seen
  await seedMedia(tests[2]!);
}, 60_000);

/** A completed session of `test` with a transcript, a video (a record, no bytes: its clip stays GENERATING), a clip and a reel of it. */
async function seedMedia(test: { testId: string; stored: SessionInput[] }) {
  const sessionId = completedOnly(test.stored)[0]!.sessionId;
  await t.runtime.store.transcripts.importTranscripts(test.testId, [{ sessionId, vtt: 'WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello.\n' }], storeActor);
  await t.runtime.store.videos.saveVideo(
    {
      sessionId, objectKey: `videos/${sessionId}/video.mp4`, posterKey: null, contentSha256: '0'.repeat(64), contentType: 'video/mp4', sizeBytes: 1000,
      durationMs: 60_000, width: 1280, height: 720, hasAudio: true, regions: { screen: { topLeftPoint: { x: 0, y: 0 }, widthPx: 1280, heightPx: 720 } },
    },
    storeActor,
  );
  const clip = await t.runtime.store.clips.createClip({ sessionId, startMs: 1000, endMs: 9000, name: 'Clip' }, storeActor);
  await t.runtime.store.reels.createReel({ testId: test.testId, name: 'Highlights', clipIds: [clip.id] }, storeActor);
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a client generated from the real contract', () => {
  it('type-checks against the generated types, and a misuse of either does not', async () => {
    const script = readFileSync(CLIENT_SCRIPT, 'utf8');
    const misuse = (file: string, right: string, wrong: string) => {
      expect(script, right).toContain(right);
      writeFileSync(join(dir, file), script.replace(right, wrong));
    };
    misuse('misuse-v2.mjs', 'data.meta.pagination.totalCount', 'data.meta.pagination.total');
    misuse('misuse-v1.mjs', "study.type === 'STUDYV2'", "study.kind === 'STUDYV2'");
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          allowJs: true,
          checkJs: true,
          noEmit: true,
          strict: true,
          target: 'ES2023',
          lib: ['ES2023', 'DOM'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        include: ['*.mjs', '*.d.ts'],
      }),
    );
    const { code, stdout } = await run(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')]);
    // tsc names files relative to the working directory (the repository).
    const errors = stdout.split('\n').filter((line) => /error TS\d+/.test(line)).map((line) => line.slice(line.lastIndexOf('/', line.indexOf('(')) + 1));
    expect(code).not.toBe(0);
    expect(errors.filter((line) => !line.startsWith('misuse-')), stdout).toEqual([]);
    expect(errors.join('\n')).toMatch(/^misuse-v2\.mjs\(\d+,\d+\): error TS2339: Property 'total' does not exist/m);
    expect(errors.join('\n')).toMatch(/^misuse-v1\.mjs\(\d+,\d+\): error TS2339: Property 'kind' does not exist/m);
  }, 150_000);

  it('signs in with a stock OAuth client, discovers its tests through v1 and pages every completed session of each, unchanged', async () => {
    const { code, stdout, stderr } = await run(process.execPath, [join(dir, 'page-completed-sessions.mjs')], {
      ISSUER: `${t.url}/oauth2/${t.runtime.servers.custom.id}`,
      SCOPE: 'studies:read',
      CLIENT_ID: client.clientId,
      CLIENT_SECRET: client.clientSecret,
      BASE_URL: t.url,
      PAGE_SIZE: '40',
    }, 60_000);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const output = JSON.parse(stdout) as { tests: { testId: string; totalCount: number; sessions: unknown[] }[] };
    // Exactly the tests of the user's workspaces, each once (studies created in the same
    // millisecond may list in either order, so compared by id); none of another team's.
    const byId = <T extends { testId: string }>(list: T[]) => [...list].sort((a, b) => a.testId.localeCompare(b.testId));
    expect(byId(output.tests)).toEqual(
      byId(tests.map(({ testId, stored }) => ({ testId, totalCount: completedOnly(stored).length, sessions: completedOnly(stored).map(rendered) }))),
    );
    expect(output.tests.map((x) => x.testId)).not.toContain(foreignTestId);
    // The biggest test spans several pages, and holds sessions of other statuses that were left out.
    const biggest = output.tests.find((x) => x.testId === tests[0]!.testId)!;
    expect(biggest.totalCount).toBeGreaterThan(40 * 3);
    expect(tests[0]!.stored.length).toBeGreaterThan(biggest.totalCount);
  }, 90_000);

  it('reaches every real operation of both documents, the v1 highlight reel by the token the v2 reel list shows', async () => {
    const { code, stdout, stderr } = await run(process.execPath, [join(dir, 'reach-every-operation.mjs')], {
      ISSUER: `${t.url}/oauth2/${t.runtime.servers.custom.id}`,
      SCOPE: 'studies:read',
      CLIENT_ID: client.clientId,
      CLIENT_SECRET: client.clientSecret,
      BASE_URL: t.url,
    }, 60_000);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const output = JSON.parse(stdout) as { statuses: Record<string, number>; reelClips: number | null };
    const real = REAL_FIXTURES.flatMap((fixture) => {
      const document = JSON.parse(readFileSync(fixturePath(fixture), 'utf8')) as { paths: Record<string, object> };
      return Object.keys(document.paths).map((path) => `GET ${path}`);
    });
    expect(Object.keys(output.statuses).sort()).toEqual(real.sort());
    expect(output.statuses).toEqual(Object.fromEntries(real.map((operation) => [operation, 200])));
    expect(output.reelClips).toBe(1);
  }, 90_000);
});
