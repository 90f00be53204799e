/**
 * The "done when" of the real contract: a client generated with stock tools from the fixture
 * of the real document (openapi-typescript types, openapi-fetch calls, oauth4webapi sign-in)
 * type-checks and runs unchanged against our server, and pages every completed session.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInput } from '../../src/store/store.js';
import { completedOnly, makeSessions, rendered, seed, seedClient, seedTest, seedWorkspace, type SeededClient } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { fixturePath, REAL_FIXTURES } from './real-contract.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT_SCRIPT = fileURLToPath(new URL('clients/page-completed-sessions.mjs', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** Runs a command to its end (bounded); resolves with its exit code and output. */
function run(file: string, args: string[], env: Record<string, string> = {}, timeoutMs = 120_000) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

/** A port free now, so the server's public URL (hence its issuer) can name it before it listens. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Under the repository (gitignored), so the script resolves openapi-fetch and oauth4webapi from node_modules. */
const artifacts = join(ROOT, 'test-artifacts');
let dir: string;
let t: TestApp;
let client: SeededClient;
let tests: { testId: string; stored: SessionInput[] }[];

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  dir = mkdtempSync(join(artifacts, 'generated-client-'));
  for (const fixture of REAL_FIXTURES) {
    const types = astToString(await openapiTS(pathToFileURL(fixturePath(fixture))));
    writeFileSync(join(dir, fixture.replace(/\.json$/, '.d.ts')), types);
  }
  copyFileSync(CLIENT_SCRIPT, join(dir, 'page-completed-sessions.mjs'));

  const port = await freePort();
  t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
  client = await seedClient(t.runtime);
  const workspaceId = await seedWorkspace(t.runtime, [client.email]);
  const statuses = ['COMPLETE', 'IN_PROGRESS', 'COMPLETE', 'ABANDONED', 'COMPLETE', 'COMPLETE', 'SCREENED_OUT'];
  tests = [];
  for (const count of [230, 0, 5]) {
    const stored = makeSessions(count, { tiesEvery: 5, statuses });
    tests.push({ testId: await seedTest(t.runtime, workspaceId, stored), stored });
  }
  await seed(t.runtime, { sessions: 4 }); // another team's test, never seen
}, 60_000);
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a client generated from the real contract', () => {
  it('type-checks against the generated types, and a misuse of them does not', async () => {
    const wrong = readFileSync(CLIENT_SCRIPT, 'utf8').replace('data.meta.pagination.totalCount', 'data.meta.pagination.total');
    writeFileSync(join(dir, 'misuse.mjs'), wrong);
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
    expect(errors.filter((line) => !line.startsWith('misuse.mjs(')), stdout).toEqual([]);
    expect(errors.join('\n')).toMatch(/^misuse\.mjs\(\d+,\d+\): error TS2339: Property 'total' does not exist/m);
  }, 150_000);

  it('signs in with a stock OAuth client and pages every completed session of each test, unchanged', async () => {
    const { code, stdout, stderr } = await run(process.execPath, [join(dir, 'page-completed-sessions.mjs')], {
      ISSUER: `${t.url}/oauth2/${t.runtime.servers.custom.id}`,
      SCOPE: 'studies:read',
      CLIENT_ID: client.clientId,
      CLIENT_SECRET: client.clientSecret,
      BASE_URL: t.url,
      TEST_IDS: tests.map((x) => x.testId).join(','),
      PAGE_SIZE: '40',
    }, 60_000);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const output = JSON.parse(stdout) as { tests: { testId: string; totalCount: number; sessions: unknown[] }[] };
    expect(output.tests).toEqual(
      tests.map(({ testId, stored }) => ({ testId, totalCount: completedOnly(stored).length, sessions: completedOnly(stored).map(rendered) })),
    );
    // The biggest test spans several pages, and holds sessions of other statuses that were left out.
    expect(output.tests[0]!.totalCount).toBeGreaterThan(40 * 3);
    expect(tests[0]!.stored.length).toBeGreaterThan(output.tests[0]!.totalCount);
  }, 90_000);
});
