import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/net.js';
import { seed } from '../helpers/seed.js';
import { startTestApp } from '../helpers/test-app.js';
import { mintToken } from '../helpers/tokens.js';

/** The conformance suite's command line (the package's bin). */
const CONFORMANCE = join(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'), '..', 'dist', 'index.js');

/**
 * The scenarios of `conformance server` that apply to a stateless, read-only server of tools,
 * resources and prompts whose fixtures are real data (docs/MCP.md says why the others do not).
 */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'prompts-list', 'dns-rebinding-protection'];

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/**
 * `conformance server` connects without credentials (it has no option for them), and /mcp
 * answers nothing without a token. This forwarder stands where a bridge such as mcp-remote
 * would: every request goes to /mcp as it came (Host and Origin included), with one header more.
 */
function tokenForwarder(target: URL, token: string): Promise<{ server: Server; url: string }> {
  const server = createServer((incoming, outgoing) => {
    const forwarded = request(target, { method: incoming.method, headers: { ...incoming.headers, authorization: `Bearer ${token}` } }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp` })));
}

function runScenario(url: string, scenario: string, outputDir: string): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CONFORMANCE, 'server', '--url', url, '--scenario', scenario, '--output-dir', outputDir],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, timeout: 60_000 },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/** Every checks.json the run wrote under `dir`. */
function checksUnder(dir: string): Check[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('checks.json'))
    .flatMap((path) => JSON.parse(readFileSync(join(dir, path), 'utf8')) as Check[]);
}

describe('@modelcontextprotocol/conformance server: the scenarios that apply', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ port, env: { PUBLIC_URL: base } });
  const s = await seed(t.runtime, { sessions: 1 });
  const forwarder = await tokenForwarder(new URL(`${t.url}/mcp`), await mintToken(t, s, 'B', `${base}/mcp`));
  const output = mkdtempSync(join(tmpdir(), 'results-api-conformance-'));
  afterAll(async () => {
    await new Promise((done) => forwarder.server.close(done));
    await t.close();
    rmSync(output, { recursive: true, force: true });
  });

  it.each(SCENARIOS)('%s: every check succeeds', async (scenario) => {
    const dir = join(output, scenario);
    const run = await runScenario(forwarder.url, scenario, dir);
    const checks = checksUnder(dir);
    expect(checks.length, run.output).toBeGreaterThan(0);
    expect(checks.filter((c) => c.status !== 'SUCCESS'), run.output).toEqual([]);
    expect(run.code, run.output).toBe(0);
  });
});
