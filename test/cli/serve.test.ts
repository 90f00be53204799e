import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH, cliSandbox, type CliSandbox } from './run-cli.js';

interface ReadyLine {
  msg: string;
  address: string;
  authUrl: string;
  baseUrl: string;
  authorizationServerId: string;
}

describe('results-api serve', () => {
  let cli: CliSandbox;
  let child: ChildProcessByStdio<null, Readable, Readable> | undefined;
  let stdout = '';
  let stderr = '';

  /** Starts `serve` on a free port and resolves with its "listening" log line. */
  function startServe(env: Record<string, string>, args: string[] = []): Promise<ReadyLine> {
    stdout = '';
    stderr = '';
    const proc = spawn(process.execPath, [CLI_PATH, 'serve', ...args], { env: { ...cli.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    proc.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    return new Promise((resolve, reject) => {
      proc.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        for (const line of stdout.split('\n')) {
          if (!line.includes('"authorizationServerId"')) continue;
          resolve(JSON.parse(line) as ReadyLine);
        }
      });
      proc.on('exit', (code) => reject(new Error(`serve exited ${code} before listening: ${stderr}`)));
    });
  }

  function exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const proc = child!;
    if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve({ code: proc.exitCode, signal: proc.signalCode });
    return new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  }

  beforeAll(() => {
    cli = cliSandbox();
  });
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child = undefined;
  });
  afterAll(() => cli.cleanup());

  it('listens, logs its URLs once ready, serves the JWKS and exits cleanly on SIGTERM', async () => {
    const ready = await startServe({ PORT: '0', LOG_LEVEL: 'info', PUBLIC_URL: 'https://api.example.com' });
    expect(ready).toMatchObject({
      address: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      authUrl: 'https://api.example.com',
      baseUrl: 'https://api.example.com',
      authorizationServerId: expect.stringMatching(/^aus[0-9A-Za-z]{17}$/),
    });
    expect(ready.msg).toContain(ready.address);
    expect(ready.msg).toContain(`API reference ${ready.address}/docs`);

    for (const id of ['default', ready.authorizationServerId]) {
      const res = await fetch(`${ready.address}/oauth2/${id}/v1/keys`);
      expect(res.status).toBe(200);
      const jwks = (await res.json()) as { keys: { kty: string; alg: string; d?: string }[] };
      expect(jwks.keys.length).toBeGreaterThan(0);
      expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256' });
      expect(jwks.keys[0]!.d).toBeUndefined();
    }

    child!.kill('SIGTERM');
    expect(await exited()).toEqual({ code: 0, signal: null });
    expect(stdout).toContain('"msg":"shutting down"');
    expect(stderr).toBe('');
  });

  it('LOG_FORMAT=pretty: readable lines (as on a terminal), secrets still redacted', async () => {
    const proc = spawn(process.execPath, [CLI_PATH, 'serve'], {
      env: { ...cli.env, PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    await expect.poll(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out), { timeout: 20_000 }).toBeTruthy();
    const address = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    const secret = 'S'.repeat(43);
    await fetch(`${address}/nowhere?client_secret=${secret}`);
    await expect.poll(() => out, { timeout: 10_000 }).toContain('/nowhere');
    const lines = out.trim().split('\n');
    // Not JSON: a time, a level, the message.
    expect(lines[0]).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] /);
    expect(() => JSON.parse(lines[0]!)).toThrow();
    expect(out).not.toContain(secret);
    proc.kill('SIGTERM');
    expect((await exited()).code).toBe(0);
  });

  it('keeps the custom server id across restarts (it is persisted)', async () => {
    const first = await startServe({ PORT: '0', LOG_LEVEL: 'info' });
    child!.kill('SIGINT');
    expect(await exited()).toEqual({ code: 0, signal: null });
    const second = await startServe({ PORT: '0', LOG_LEVEL: 'info' });
    expect(second.authorizationServerId).toBe(first.authorizationServerId);
    child!.kill('SIGTERM');
    expect(await exited()).toEqual({ code: 0, signal: null });
  });

  it.each([
    [{ PORT: 'abc' }, 'error: PORT must be an integer from 0 to 65535 (got "abc")\n'],
    [{ PORT: '70000' }, 'error: PORT must be an integer from 0 to 65535 (got 70000)\n'],
    [{ DATABASE_URL: 'mysql://db/results' }, 'error: DATABASE_URL must be sqlite:<path> or postgres://... (got "mysql://db/results")\n'],
    [{ METRICS_PORT: 'x' }, 'error: METRICS_PORT must be an integer from 0 to 65535 (got "x")\n'],
    [{ LOG_LEVEL: 'loud' }, 'error: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")\n'],
  ])('exits 2 with one clear line and no stack trace on a bad setting %j', async (env, message) => {
    startServe(env).catch(() => {});
    expect(await exited()).toEqual({ code: 2, signal: null });
    expect(stderr).toBe(message);
    expect(stdout).toBe('');
  });

  it.each([['1'], ['2']])('with --workers %s, a METRICS_PORT already taken stops the start with one clear line', async (workers) => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      startServe({ PORT: '0', LOG_LEVEL: 'info', METRICS_PORT: String(port) }, ['--workers', workers]).catch(() => {});
      expect(await exited()).toEqual({ code: 1, signal: null });
      expect(stderr).toBe(`error: cannot serve metrics on 127.0.0.1:${port} (METRICS_HOST, METRICS_PORT): EADDRINUSE\n`);
    } finally {
      taken.close();
    }
  });
});
