import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedOnly, makeSessions, seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLIENT_PACKAGE = join(ROOT, 'packages/client');
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

/** npm as `npm test` runs it (the same CLI under the same Node), else the one on PATH. */
const NPM: [string, string[]] = process.env.npm_execpath?.endsWith('.js')
  ? [process.execPath, [process.env.npm_execpath]]
  : ['npm', []];

/**
 * npm's environment without what the enclosing `npm test` set (npm_config_*, the workspace
 * root): the install below must behave as in a user's empty folder.
 */
function userEnv(cache: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.toLowerCase().startsWith('npm_') && name !== 'INIT_CWD') env[name] = value;
  }
  // An empty cache: nothing but the tarball is available to the install.
  return { ...env, npm_config_cache: cache, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

async function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await run(NPM[0], [...NPM[1], ...args], { cwd, env, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

interface PackResult {
  filename: string;
  files: { path: string }[];
  bundled: string[];
}

/** The program an API user writes after `npm install @results-api/client`, nothing else. */
const PROGRAM = `import { ResultsApiError, ResultsClient } from '@results-api/client';

const [baseUrl, testId] = process.argv.slice(2);
const options = { authUrl: baseUrl, baseUrl, clientId: process.env.CLIENT_ID, clientSecret: process.env.CLIENT_SECRET };
const sessionIds = [];
for await (const session of new ResultsClient(options).sessionResults(testId, { pageSize: 2 })) {
  sessionIds.push(session.sessionId);
}
let refused;
try {
  await new ResultsClient({ ...options, clientSecret: 'not-the-secret' }).listSessionResults({ testId });
} catch (error) {
  refused = error instanceof ResultsApiError ? { status: error.status, error: error.oauth?.error } : String(error);
}
console.log(JSON.stringify({ sessionIds, refused }));
`;

/** Compiled with the package's declarations alone: no Node types, only the ECMAScript and DOM libraries. */
const TYPED_PROGRAM = `import { ResultsClient, type SessionResult } from '@results-api/client';

const client = new ResultsClient({ authUrl: 'https://auth.example', baseUrl: 'https://api.example', clientId: 'id', clientSecret: 'secret' });
export async function first(testId: string): Promise<SessionResult | undefined> {
  for await (const session of client.sessionResults(testId)) return session;
  return undefined;
}
// The declarations are real types, not \`any\`: a wrong option must not compile.
// @ts-expect-error clientId is a string
new ResultsClient({ authUrl: 'a', baseUrl: 'b', clientId: 1, clientSecret: 'c' });
`;

describe('the @results-api/client package: packed alone, installed into an empty folder, used against a live server', { timeout: 120_000 }, () => {
  let t: TestApp;
  let s: Seeded;
  let work: string;
  let tarball: string;
  let packed: PackResult;
  let app: string;

  beforeAll(async () => {
    if (!existsSync(join(CLIENT_PACKAGE, 'dist/index.js'))) throw new Error('packages/client/dist is missing: run `npm run build` first');
    work = mkdtempSync(join(tmpdir(), 'results-api-client-package-'));
    const env = userEnv(join(work, 'npm-cache'));
    // --ignore-scripts: pack what `npm run build` built, without rebuilding it concurrently.
    [packed] = JSON.parse(await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], CLIENT_PACKAGE, env)) as [PackResult];
    tarball = join(work, packed.filename);
    app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }));
    // --offline with an empty cache: an install that needed any other package would fail here.
    await npm(['install', '--offline', '--no-audit', '--no-fund', tarball], app, env);
    t = await startTestApp();
    s = await seed(t.runtime, { sessions: makeSessions(7, { statuses: ['COMPLETE', 'ABANDONED', 'COMPLETE'] }) });
  });
  afterAll(async () => {
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packs only the client: its build, README, LICENSE and package.json', () => {
    const paths = packed.files.map((file) => file.path).sort();
    expect(paths).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts']));
    const strays = paths.filter((path) => !['LICENSE', 'README.md', 'package.json'].includes(path) && !/^dist\/[\w-]+\.(js|d\.ts|js\.map)$/.test(path));
    expect(strays).toEqual([]);
  });

  it('carries the version of the server it is released with, which depends on exactly that version', () => {
    const read = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as { version: string; dependencies: Record<string, string> };
    const server = read('package.json');
    expect(read('packages/client/package.json').version).toBe(server.version);
    expect(server.dependencies['@results-api/client']).toBe(server.version);
  });

  it('has no dependencies of any kind, and the install added nothing else', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/@results-api/client/package.json'), 'utf8')) as Record<string, unknown>;
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies', 'bundledDependencies']) {
      expect(manifest[field], field).toBeUndefined();
    }
    expect(readdirSync(join(app, 'node_modules')).filter((name) => name !== '.package-lock.json')).toEqual(['@results-api']);
    expect(readdirSync(join(app, 'node_modules/@results-api'))).toEqual(['client']);
  });

  it('runs an ESM program that reads every completed session and gets a typed error for a wrong secret', async () => {
    writeFileSync(join(app, 'program.mjs'), PROGRAM);
    const { stdout, stderr } = await run(process.execPath, ['program.mjs', t.url, s.testId], {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', CLIENT_ID: s.clientId, CLIENT_SECRET: s.clientSecret },
    });
    expect(stderr).toBe('');
    const result = JSON.parse(stdout) as { sessionIds: string[]; refused: unknown };
    const completed = completedOnly(s.sessions).map((session) => session.sessionId);
    expect(completed.length).toBeLessThan(s.sessions.length);
    expect(result.sessionIds.toSorted()).toEqual(completed.toSorted());
    expect(result.refused).toEqual({ status: 401, error: 'invalid_client' });
  });

  it('ships declarations that type-check with no Node types and no other package', async () => {
    writeFileSync(join(app, 'typed.ts'), TYPED_PROGRAM);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', lib: ['es2023', 'dom'], types: [], strict: true, noEmit: true, skipLibCheck: false },
        files: ['typed.ts'],
      }),
    );
    await expect(run(process.execPath, [TSC, '-p', app], { cwd: app })).resolves.toMatchObject({ stdout: '' });
  });

  it('results-api/client, the earlier import path, is the same module as @results-api/client', async () => {
    const program = `const earlier = await import('results-api/client'); const sdk = await import('@results-api/client');
      console.log(JSON.stringify({ names: Object.keys(earlier).sort(), same: Object.keys(sdk).every((name) => earlier[name] === sdk[name]) }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', program], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual({ names: expect.arrayContaining(['ResultsApiError', 'ResultsClient', 'ResultsNetworkError']), same: true });
  });

  it("the server's tarball carries the SDK it imports, so installing it needs no registry copy of @results-api/client", async () => {
    const [server] = JSON.parse(await npm(['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT, userEnv(join(work, 'npm-cache')))) as [PackResult];
    expect(server.bundled).toEqual(['@results-api/client']);
    const paths = server.files.map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(['dist/client.js', 'dist/cli/main.js', 'node_modules/@results-api/client/dist/index.js', 'node_modules/@results-api/client/package.json']));
  });
});
