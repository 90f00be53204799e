import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedOnly, seed, storeActor, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';
import { runCli } from './run-cli.js';

const cue = (start: string, end: string, text: string) => `${start} --> ${end}\n${text}\n`;

describe('results-api search', () => {
  let t: TestApp;
  let s: Seeded;
  let env: Record<string, string>;
  let said: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_API: '100000' } });
    s = await seed(t.runtime, { sessions: 3 });
    const [first, second] = completedOnly(s.sessions);
    said = first!.sessionId;
    await t.runtime.store.transcripts.importTranscripts(
      s.testId,
      [
        { sessionId: said, vtt: `WEBVTT\n\n${cue('00:01:05.000', '00:01:08.000', '<v Participant>Where is the checkout\nbutton? The checkout button!</v>')}` },
        { sessionId: second!.sessionId, vtt: `WEBVTT\n\n${cue('00:00:02.000', '00:00:04.000', 'A button near the checkout.')}` },
      ],
      storeActor,
    );
    env = {
      PATH: process.env.PATH ?? '',
      HOME: tmpdir(),
      XDG_CONFIG_HOME: join(tmpdir(), 'results-api-no-such-config'),
      RESULTS_API_CLIENT_ID: s.clientId,
      RESULTS_API_CLIENT_SECRET: s.clientSecret,
      RESULTS_API_AUTH_URL: t.url,
      RESULTS_API_BASE_URL: t.url,
    };
  });
  afterAll(() => t.close());

  it('prints the hits as a table, best first: session, kind, time in the video, speaker, snippet on one line', async () => {
    const result = await runCli(['search', 'checkout button'], env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SESSION\s+KIND\s+AT\s+SPEAKER\s+SNIPPET$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^${said}\\s+transcript\\s+1:05\\s+Participant\\s+Where is the \\*\\*checkout\\*\\* \\*\\*button\\*\\*`));
    expect(lines[2]).toMatch(/\s+0:02\s+-\s+/);
  });

  it('--json --test prints what GET /api/v2/search answers, as is', async () => {
    const result = await runCli(['search', 'checkout button', '--test', s.testId, '--json'], env);
    expect(result.code).toBe(0);
    const api = await fetch(`${t.url}/api/v2/search?q=checkout+button&testId=${s.testId}&limit=20&offset=0`, { headers: authHeaders(await mintToken(t, s, 'B')) });
    expect(JSON.parse(result.stdout)).toEqual(await api.json());
  });

  it('--limit pages, naming the next --offset; --offset reaches it', async () => {
    const first = await runCli(['search', 'checkout', '--limit', '1'], env);
    expect(first.stdout).toMatch(/\n\(more: --offset 1\)\n$/);
    const next = await runCli(['search', 'checkout', '--limit', '1', '--offset', '1', '--json'], env);
    expect(JSON.parse(next.stdout)).toMatchObject({ meta: { limit: 1, offset: 1, hasMore: false }, hits: [{ startMs: 2000 }] });
  });

  it('says when nothing matched', async () => {
    const result = await runCli(['search', 'refund'], env);
    expect(result).toMatchObject({ code: 0, stdout: 'no hits for "refund"\n' });
  });

  it('bad options are usage errors (exit 2); a test the user may not see is the API\'s 404 (exit 1)', async () => {
    for (const args of [['--test', 'nope'], ['--limit', '101'], ['--offset', '-1'], ['--offset', '10001']]) {
      const result = await runCli(['search', 'checkout', ...args], env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^error: ${args[0]} must be`));
    }
    const foreign = await runCli(['search', 'checkout', '--test', randomUUID()], env);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain('Test not found');
    const empty = await runCli(['search', '!!!'], env);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/^error: .*q/);
  });
});
