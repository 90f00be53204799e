import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import { rendered, seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { CLI_PATH, runCli, type CliResult } from './run-cli.js';

/** A port nothing listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `results-api <args>` with `stdin` piped in. */
function runWithStdin(args: string[], env: Record<string, string>, stdin: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('results-api sessions export', () => {
  let t: TestApp;
  let s: Seeded;
  let dir: string;
  /** A clean environment: nothing of the developer's, a HOME without a config file. */
  let base: Record<string, string>;
  let formA: Record<string, string>;
  let formB: Record<string, string>;

  beforeAll(async () => {
    if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run \`npm run build\` first`);
    t = await startTestApp();
    s = await seed(t.runtime, { sessions: 3003 });
    dir = mkdtempSync(join(tmpdir(), 'results-api-export-'));
    base = { PATH: process.env.PATH ?? '', HOME: dir };
    formA = { ...base, RESULTS_API_CLIENT_ID: s.clientId, RESULTS_API_CLIENT_SECRET: s.clientSecret, RESULTS_API_BASE_URL: t.url };
    formB = { ...formA, RESULTS_API_AUTH_SERVER_ID: t.runtime.servers.custom.id };
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('NDJSON on stdout: exactly totalCount lines, in order, nothing else anywhere', async () => {
    const result = await runCli(['sessions', 'export', '--test', s.testId], formB);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3003);
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual(s.sessions.map(rendered));
  });

  it('CSV into --out (form A): a header and exactly totalCount records; the file imports back', async () => {
    const out = join(dir, 'sessions.csv');
    const result = await runCli(['sessions', 'export', '--test', s.testId, '--out', out], { ...formA, RESULTS_API_FORM: 'A' });

    // Not on a terminal: the summary still goes to stderr (a script logs it); stdout stays empty.
    expect(result).toEqual({ code: 0, signal: null, stdout: '', stderr: `exported 3003 sessions of test ${s.testId} to ${out}\n` });
    const text = readFileSync(out, 'utf8');
    const lines = text.split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3004);
    expect(lines[0]).toBe('sessionId,audienceId,status,startTime,finishTime');
    expect(parseSessionFile(text, 'csv')).toEqual({ ok: true, sessions: s.sessions });
    expect(readdirSync(dir).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('--format wins over the extension of --out', async () => {
    const out = join(dir, 'sessions.txt');
    const result = await runCli(['sessions', 'export', '--test', s.testId, '--out', out, '--format', 'csv'], formB);
    expect(result.code).toBe(0);
    expect(readFileSync(out, 'utf8').split('\r\n')[0]).toBe('sessionId,audienceId,status,startTime,finishTime');
  });

  it('--json with --out: the summary as JSON on stdout; without --out: refused, nothing sent', async () => {
    const out = join(dir, 'summary.ndjson');
    const result = await runCli(['sessions', 'export', '--test', s.testId, '--out', out, '--json'], formB);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ testId: s.testId, sessions: 3003, out, format: 'ndjson' });
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(3003);
    const refused = await runCli(['sessions', 'export', '--test', s.testId, '--json'], formB);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toMatch(/^error: --json prints the summary on stdout, which carries the sessions themselves without --out/);
  });

  it('credentials from a 0600 config file, the secret from stdin', async () => {
    const config = join(dir, 'home-config', 'results-api', 'credentials.json');
    mkdirSync(join(config, '..'), { recursive: true });
    writeFileSync(config, JSON.stringify({ clientId: s.clientId, baseUrl: t.url, authorizationServerId: t.runtime.servers.custom.id }));
    chmodSync(config, 0o600);
    const env = { ...base, XDG_CONFIG_HOME: join(dir, 'home-config') };

    const result = await runWithStdin(['sessions', 'export', '--test', s.testId, '--client-secret-stdin'], env, `${s.clientSecret}\n`);

    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toHaveLength(3004);
  });

  it('refuses a config file others may read, and exports nothing', async () => {
    const config = join(dir, 'open.json');
    writeFileSync(config, JSON.stringify({ clientId: s.clientId, clientSecret: s.clientSecret, baseUrl: t.url }));
    chmodSync(config, 0o644);
    const result = await runCli(['sessions', 'export', '--test', s.testId, '--config', config], base);
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: `error: config file ${config} has permissions 0644; it holds a client secret, so only its owner may read it: run chmod 600 ${config}\n`,
    });
  });

  it('an unknown test: exit 1, the API’s words on stderr, no output file', async () => {
    const out = join(dir, 'missing.ndjson');
    const missing = '00000000-0000-4000-8000-000000000000';
    const result = await runCli(['sessions', 'export', '--test', missing, '--out', out], formB);
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: `error: GET ${t.url}/api/v2/sessionResults answered 404 Not found: Test not found\n`,
    });
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('a wrong secret: exit 1 with the authorization server’s error, the secret never echoed', async () => {
    const result = await runCli(['sessions', 'export', '--test', s.testId], { ...formB, RESULTS_API_CLIENT_SECRET: 'not-the-secret' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const [error, ...hint] = result.stderr.split('\n');
    expect(error).toBe(
      `error: POST ${t.url}/oauth2/${t.runtime.servers.custom.id}/v1/token answered 401 invalid_client: ` +
        'Client authentication failed. Either the client or the client credentials are invalid. Check the client id and secret ' +
        '(a revoked credential, or a secret rotated out and past its grace period, no longer works) and that authUrl names the server that issued them.',
    );
    // Where this CLI took them from, and how to tell whether they still hold.
    expect(hint.join('\n')).toMatch(/^hint: the client id and secret came from --client-secret-stdin, RESULTS_API_CLIENT_ID .*credentials file \(--config; default ~\/\.config\/results-api\/credentials\.json\).*RESULTS_API_AUTH_URL.*results-api credentials list --email <user>/s);
    expect(result.stderr).not.toContain('not-the-secret');
  });

  it('usage mistakes exit 2 before anything is sent', async () => {
    expect(await runCli(['sessions', 'export', '--test', 'nope'], formB)).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'error: --test must be a UUID such as 6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11 (got "nope")\n',
    });
    expect(await runCli(['sessions', 'export', '--test', s.testId], base)).toMatchObject({
      code: 2,
      stderr: `error: no client id: set RESULTS_API_CLIENT_ID and RESULTS_API_CLIENT_SECRET, or put clientId and clientSecret in ${join(dir, '.config', 'results-api', 'credentials.json')}\n`,
    });
    const badFormat = await runCli(['sessions', 'export', '--test', s.testId, '--format', 'xml'], formB);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toContain("error: option '--format <format>' argument 'xml' is invalid. Allowed choices are ndjson, csv.");
  });

  it('no server listening: exit 1 saying the connection failed', async () => {
    const closed = await closedPort();
    const result = await runCli(['sessions', 'export', '--test', s.testId], { ...formB, RESULTS_API_BASE_URL: `http://127.0.0.1:${closed}` });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error: POST http://127.0.0.1:${closed}/oauth2/${t.runtime.servers.custom.id}/v1/token failed: fetch failed: connect ECONNREFUSED 127.0.0.1:${closed}\n`,
    );
  }, 60_000);
});
