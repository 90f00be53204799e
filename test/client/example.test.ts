import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInput } from '../../src/store/store.js';
import { completedOnly, makeSessions, seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));
const EXAMPLES = ['export-sessions.mjs', 'sessions-by-audience.mjs'];
const BUILT_SDK = fileURLToPath(new URL('../../dist/client.js', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs an example as a user would, with only the environment given (and PATH). */
async function runExample(name: string, args: string[], env: Record<string, string>, cwd?: string): Promise<Run> {
  return promisify(execFile)(process.execPath, [example(name), ...args], { env: { PATH: process.env.PATH ?? '', ...env }, cwd }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

/** A session as the API (hence the examples) write it: ISO 8601 times. */
const asListed = (s: SessionInput) => ({
  sessionId: s.sessionId,
  audienceId: s.audienceId,
  status: s.status,
  startTime: new Date(s.startTime).toISOString(),
  finishTime: s.finishTime === null ? null : new Date(s.finishTime).toISOString(),
});

describe('the examples, against a live server', () => {
  let t: TestApp;
  let s: Seeded;
  let credentialsEnv: Record<string, string>;

  beforeAll(async () => {
    if (!existsSync(BUILT_SDK)) throw new Error(`${BUILT_SDK} is missing: run \`npm run build\` first`);
    t = await startTestApp();
    // Sessions of other statuses are stored too; the API, hence the examples, never see them.
    // More than one page (500 at most), so the iterator pages.
    s = await seed(t.runtime, { sessions: makeSessions(1234, { statuses: ['COMPLETE', 'ABANDONED', 'COMPLETE', 'IN_PROGRESS', 'COMPLETE'] }) });
    credentialsEnv = { RESULTS_API_CLIENT_ID: s.clientId, RESULTS_API_CLIENT_SECRET: s.clientSecret, RESULTS_API_BASE_URL: t.url };
  });
  afterAll(() => t.close());

  describe('sessions-by-audience.mjs', () => {
    const expected = () => {
      const completed = completedOnly(s.sessions);
      const byAudience: Record<string, number> = {};
      for (const session of completed) byAudience[session.audienceId ?? 'no audience'] = (byAudience[session.audienceId ?? 'no audience'] ?? 0) + 1;
      expect(completed.length).toBeLessThan(s.sessions.length);
      return `${completed.length} completed sessions in test ${s.testId} ${JSON.stringify(byAudience)}\n`;
    };

    it.each([
      ['form B (custom server)', () => ({ RESULTS_API_AUTH_SERVER_ID: t.runtime.servers.custom.id })],
      ['form A (default server)', () => ({})],
    ])('%s', async (_name, extraEnv) => {
      const result = await runExample('sessions-by-audience.mjs', [s.testId], { ...credentialsEnv, ...extraEnv() });
      expect(result).toEqual({ code: 0, stdout: expected(), stderr: '' });
    });
  });

  describe('export-sessions.mjs', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'results-api-example-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('writes every completed session as NDJSON to stdout, in the API order', async () => {
      const result = await runExample('export-sessions.mjs', [s.testId], { ...credentialsEnv, RESULTS_API_AUTH_SERVER_ID: t.runtime.servers.custom.id });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const lines = result.stdout.split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual(completedOnly(s.sessions).map(asListed));
    });

    it('writes CSV to --out, the file appearing only once complete', async () => {
      const out = join(dir, 'sessions.csv');
      const result = await runExample('export-sessions.mjs', [s.testId, '--format', 'csv', '--out', out], credentialsEnv);
      const completed = completedOnly(s.sessions);
      expect(result).toEqual({ code: 0, stdout: '', stderr: `exported ${completed.length} sessions of test ${s.testId} to ${out}\n` });
      const records = readFileSync(out, 'utf8').split('\r\n');
      expect(records.pop()).toBe('');
      expect(records[0]).toBe('sessionId,audienceId,status,startTime,finishTime');
      const first = asListed(completed[0]!);
      expect(records[1]).toBe([first.sessionId, first.audienceId ?? '', first.status, first.startTime, first.finishTime ?? ''].join(','));
      expect(records).toHaveLength(completed.length + 1);
      expect(readdirSync(dir)).toEqual(['sessions.csv']);
    });

    it('writes no file when the export fails, and says why in one line (exit 1)', async () => {
      const out = join(dir, 'refused.ndjson');
      const result = await runExample('export-sessions.mjs', [s.testId, '--out', out], { ...credentialsEnv, RESULTS_API_CLIENT_SECRET: 'not-the-secret' });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: .*invalid_client.*\n$/);
      expect(readdirSync(dir)).not.toContain('refused.ndjson');
      expect(readdirSync(dir)).not.toContain('refused.ndjson.partial');
    });
  });
});

describe('the examples, without what they need', () => {
  /** A usage mistake: exit 2, the problem then the usage on stderr, no stack trace, nothing on stdout. */
  const expectUsage = (result: Run, problem: RegExp) => {
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(new RegExp(`^error: ${problem.source}\n\nUsage: node examples/`));
    expect(result.stderr).toContain('RESULTS_API_CLIENT_SECRET');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  };
  const env = { RESULTS_API_CLIENT_ID: '0oa0', RESULTS_API_CLIENT_SECRET: 'secret', RESULTS_API_BASE_URL: 'http://127.0.0.1:9' };
  const testId = '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f';

  it.each(EXAMPLES)('%s: no arguments, no environment', async (name) => {
    expectUsage(await runExample(name, [], {}), /the test id is missing/);
  });

  it.each(EXAMPLES)('%s: no environment', async (name) => {
    expectUsage(await runExample(name, [testId], {}), /RESULTS_API_CLIENT_ID, RESULTS_API_CLIENT_SECRET, RESULTS_API_BASE_URL are not set/);
    expectUsage(await runExample(name, [testId], { ...env, RESULTS_API_CLIENT_SECRET: '' }), /RESULTS_API_CLIENT_SECRET is not set/);
    expectUsage(await runExample(name, [testId], { ...env, RESULTS_API_BASE_URL: 'localhost:8080' }), /RESULTS_API_BASE_URL must be an absolute http\(s\) URL, e\.g\. http:\/\/localhost:8080 \(got "localhost:8080"\)/);
  });

  it.each(EXAMPLES)('%s: --help prints the usage (exit 0)', async (name) => {
    const result = await runExample(name, ['--help'], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: node examples\//);
  });

  it('export-sessions.mjs: a wrong option or format', async () => {
    expectUsage(await runExample('export-sessions.mjs', [testId, '--format', 'xml'], env), /--format must be ndjson or csv \(got "xml"\)/);
    expectUsage(await runExample('export-sessions.mjs', [testId, '--bogus'], env), /Unknown option '--bogus'.*/);
  });

  it('a server that does not answer: one line, exit 1', async () => {
    const result = await runExample('sessions-by-audience.mjs', [testId], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: POST http:\/\/127\.0\.0\.1:9\/oauth2\/default\/v1\/token failed: .*\n$/);
  });
});
