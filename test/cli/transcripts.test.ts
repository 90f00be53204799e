import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportTranscripts } from '../../src/cli/transcripts-export.js';
import { ResultsApiError } from '@results-api/client';
import { clientFor } from '../client/helpers.js';
import { makeSessions, seed, storeActor, type Seeded } from '../helpers/seed.js';
import { openStoreAt } from '../helpers/stores.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { cliSandbox, runCli, type CliSandbox } from './run-cli.js';

const WS_ID = 'a3a7f2d4-0b7e-4a57-8f63-2f0d3c1a9e01';
const TEST_ID = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
const OTHER_TEST_ID = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a22';
const S = (n: number) => `0b0c4a3e-1111-4c1a-9a55-${String(n).padStart(12, '0')}`;
const vtt = (words: string) => `WEBVTT\n\n00:00:00.000 --> 00:00:03.000\n${words}\n`;

interface ImportJson {
  testId: string;
  files: number;
  inserted: number;
  updated: number;
  unchanged: number;
}

describe('results-api transcripts import', () => {
  let cli: CliSandbox;

  async function stored(sessionId: string): Promise<string | undefined> {
    const store = await openStoreAt(cli.databaseUrl);
    try {
      return (await store.transcripts.findTranscript(sessionId))?.vtt;
    } finally {
      await store.database.close();
    }
  }
  const transcriptImports = async () => (await cli.json<{ action: string }[]>(['audit', '--action', 'transcripts'])).length;

  /** A folder of the given files (name → content) in the sandbox. */
  function folder(name: string, files: Record<string, string>): string {
    const dir = join(cli.dir, name);
    mkdirSync(dir);
    for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
    return dir;
  }

  beforeAll(async () => {
    cli = cliSandbox();
    await cli.json(['workspaces', 'create', '--name', 'Lab', '--id', WS_ID]);
    await cli.json(['tests', 'create', '--workspace', WS_ID, '--title', 'T', '--id', TEST_ID]);
    await cli.json(['tests', 'create', '--workspace', WS_ID, '--title', 'Other', '--id', OTHER_TEST_ID]);
    const line = (n: number) => JSON.stringify({ sessionId: S(n), audienceId: null, status: 'COMPLETE', startTime: `2024-11-21T12:0${n}:00.000Z` });
    await cli.json(['sessions', 'import', '--test', TEST_ID, cli.file('t.ndjson', [1, 2, 3].map(line).join('\n'))]);
    await cli.json(['sessions', 'import', '--test', OTHER_TEST_ID, cli.file('o.ndjson', line(9))]);
  });
  afterAll(() => cli.cleanup());

  it('--session S FILE.vtt: imports one transcript into the session\'s own test; the same file again changes nothing', async () => {
    const file = cli.file('one.vtt', vtt('Session one.'));
    const result = await cli.run(['transcripts', 'import', '--session', S(1).toUpperCase(), file]);
    expect(result).toMatchObject({ code: 0, stdout: `imported 1 transcript into test ${TEST_ID}: 1 inserted, 0 updated, 0 unchanged\n`, stderr: '' });
    expect(await stored(S(1))).toBe(vtt('Session one.'));
    const audited = await transcriptImports();

    expect(await cli.json<ImportJson>(['transcripts', 'import', '--session', S(1), file])).toEqual({
      testId: TEST_ID,
      files: 1,
      inserted: 0,
      updated: 0,
      unchanged: 1,
    });
    expect(await transcriptImports()).toBe(audited);
  });

  it('--test T DIR: every <sessionId>.vtt of the folder, in one import; new text replaces the old', async () => {
    const dir = folder('all', { [`${S(1)}.vtt`]: vtt('Session one, again.'), [`${S(2)}.VTT`]: vtt('Session two.'), '.DS_Store': 'ignored' });
    expect(await cli.json<ImportJson>(['transcripts', 'import', '--test', TEST_ID, dir])).toEqual({ testId: TEST_ID, files: 2, inserted: 1, updated: 1, unchanged: 0 });
    expect(await stored(S(1))).toBe(vtt('Session one, again.'));
    expect(await stored(S(2))).toBe(vtt('Session two.'));
  });

  it('all or nothing: one file that is not WebVTT, and nothing of the folder is imported; each bad file is named with its line', async () => {
    const dir = folder('bad', {
      [`${S(3)}.vtt`]: vtt('Good.'),
      [`${S(2)}.vtt`]: 'WEBVTT\n\n00:00:05.000 --> 00:00:01.000\nBackwards.\n',
      [`${S(1)}.vtt`]: '1\n00:00:00,000 --> 00:00:02,000\nAn SRT file.\n',
    });
    const result = await cli.run(['transcripts', 'import', '--test', TEST_ID, dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      `${join(dir, `${S(1)}.vtt`)}: line 1: missing WEBVTT file header`,
      `${join(dir, `${S(2)}.vtt`)}: line 3: the cue ends (00:00:01.000) before it starts (00:00:05.000)`,
      'error: 2 bad transcripts; nothing was imported',
      '',
    ]);
    expect(await stored(S(3))).toBeUndefined();
    expect(await stored(S(2))).toBe(vtt('Session two.'));
  });

  it('refuses files not named for a session, and sessions not in the test, importing nothing', async () => {
    const misnamed = folder('misnamed', { [`${S(3)}.vtt`]: vtt('Good.'), 'notes.txt': 'hello', 'session-1.vtt': vtt('x') });
    const result = await cli.run(['transcripts', 'import', '--test', TEST_ID, misnamed]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(misnamed, 'notes.txt')}: not a <sessionId>.vtt file`);
    expect(result.stderr).toContain(`${join(misnamed, 'session-1.vtt')}: not a <sessionId>.vtt file`);

    const foreign = folder('foreign', { [`${S(3)}.vtt`]: vtt('Good.'), [`${S(9)}.vtt`]: vtt('Of the other test.') });
    const refused = await cli.run(['transcripts', 'import', '--test', TEST_ID, foreign]);
    expect(refused).toMatchObject({ code: 1, stderr: `error: test ${TEST_ID} has no session ${S(9)} (import the session first)\n` });
    const wrongTest = await cli.run(['transcripts', 'import', '--test', TEST_ID, '--session', S(9), cli.file('nine.vtt', vtt('Nine.'))]);
    expect(wrongTest).toMatchObject({ code: 1, stderr: `error: test ${TEST_ID} has no session ${S(9)} (import the session first)\n` });
    expect(await stored(S(3))).toBeUndefined();
    expect(await stored(S(9))).toBeUndefined();
  });

  it.each([
    [['transcripts', 'import', 'x.vtt'], /give --session S with a \.vtt file, or --test T with a folder/],
    [['transcripts', 'import', '--session', 'nope', 'x.vtt'], /--session must be a UUID/],
    [['transcripts', 'import', '--session', S(1), 'missing.vtt'], /cannot read missing\.vtt: no such file or folder/],
    [['transcripts', 'import', '--test', TEST_ID, 'one.vtt'], /one\.vtt is not a folder/],
  ])('exits 2 on a usage mistake: %j', async (args, message) => {
    const result = await cli.run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe('results-api transcripts export', () => {
  let t: TestApp;
  let s: Seeded;
  let dir: string;
  let env: Record<string, string>;
  /** The completed sessions with a transcript, by id. */
  const expected = new Map<string, string>();

  beforeAll(async () => {
    t = await startTestApp();
    s = await seed(t.runtime, { sessions: makeSessions(30, { statuses: ['COMPLETE', 'COMPLETE', 'IN_PROGRESS'] }) });
    const spoken = s.sessions.filter((_, i) => i % 4 !== 0);
    await t.runtime.store.transcripts.importTranscripts(s.testId, spoken.map((x) => ({ sessionId: x.sessionId, vtt: vtt(x.sessionId) })), storeActor);
    for (const x of spoken) if (x.status === 'COMPLETE') expected.set(x.sessionId, vtt(x.sessionId));
    dir = mkdtempSync(join(tmpdir(), 'results-api-transcripts-'));
    env = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      RESULTS_API_CLIENT_ID: s.clientId,
      RESULTS_API_CLIENT_SECRET: s.clientSecret,
      RESULTS_API_BASE_URL: t.url,
      RESULTS_API_AUTH_SERVER_ID: t.runtime.servers.custom.id,
    };
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const filesIn = (out: string) => Object.fromEntries(readdirSync(out).map((name) => [name, readFileSync(join(out, name), 'utf8')]));

  it('writes one <sessionId>.vtt per completed session that has a transcript, and nothing else', async () => {
    const out = join(dir, 'out');
    const result = await runCli(['transcripts', 'export', '--test', s.testId, '--out', out], env);
    // Not on a terminal: the summary still goes to stderr (a script logs it), stdout stays empty.
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr: `exported ${expected.size} transcripts of test ${s.testId} to ${out} (${20 - expected.size} of 20 completed sessions have none)\n`,
    });
    expect(filesIn(out)).toEqual(Object.fromEntries([...expected].map(([id, text]) => [`${id}.vtt`, text])));
  });

  it('--json prints the summary; the folder imports back unchanged', async () => {
    const out = join(dir, 'again');
    const summary = JSON.parse((await runCli(['transcripts', 'export', '--test', s.testId, '--out', out, '--json'], env)).stdout) as Record<string, unknown>;
    expect(summary).toEqual({ testId: s.testId, sessions: 20, transcripts: expected.size, out });
    expect(await t.runtime.store.transcripts.importTranscripts(s.testId, Object.entries(filesIn(out)).map(([name, text]) => ({ sessionId: name.slice(0, 36), vtt: text })), storeActor)).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: expected.size,
    });
  });

  it('refuses a test the caller cannot see, and an --out that is a file', async () => {
    const hidden = await runCli(['transcripts', 'export', '--test', (await seed(t.runtime)).testId, '--out', join(dir, 'hidden')], env);
    expect(hidden.code).toBe(1);
    expect(hidden.stderr).toMatch(/answered 404 Not found: Test not found/);
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    expect(await runCli(['transcripts', 'export', '--test', s.testId, '--out', file], env)).toMatchObject({ code: 2, stderr: `error: --out ${file} is a file: give a folder\n` });
  });

  it('reports progress per session of the total, and stops at the first failure other than a 404 with only whole files written', async () => {
    const events: string[] = [];
    const progress = { update: (done: number, total: number) => events.push(`${done}/${total}`), clear: () => events.push('clear') };
    const out = join(dir, 'progress');
    mkdirSync(out);
    expect(await exportTranscripts(clientFor(t, s, 'B'), s.testId, { out, progress })).toEqual({ sessions: 20, transcripts: expected.size });
    expect(events).toEqual([...Array.from({ length: 20 }, (_, i) => `${i + 1}/20`), 'clear']);

    // The credential is revoked midway: the next transcript is refused (401), and so is a new token.
    let calls = 0;
    const failing = clientFor(t, s, 'A', {
      fetch: async (input, init) => {
        if (input.includes('/transcript') && ++calls === 6) await t.runtime.store.credentials.revokeCredential(s.clientId, storeActor);
        return fetch(input, init);
      },
    });
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    const error = await exportTranscripts(failing, s.testId, { out: broken, progress: undefined }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultsApiError);
    expect((error as ResultsApiError).status).toBe(401);
    const written = filesIn(broken);
    expect(Object.keys(written).length).toBeLessThan(expected.size);
    for (const [name, text] of Object.entries(written)) expect(text).toBe(expected.get(name.slice(0, 36)));
    expect(readdirSync(broken).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('never writes outside the folder: a listed session id that is not a UUID stops the export', async () => {
    const out = join(dir, 'hostile');
    mkdirSync(out);
    const hostile = {
      async *sessionResults() {
        yield { sessionId: '../../escaped', audienceId: null, status: 'COMPLETE', startTime: '2024-01-01T00:00:00.000Z', finishTime: null };
      },
      transcript: async () => vtt('should never be written'),
    };
    await expect(exportTranscripts(hostile, s.testId, { out, progress: undefined })).rejects.toThrow(/session id that is not a UUID/);
    expect(readdirSync(out)).toEqual([]);
    expect(existsSync(join(out, '../../escaped.vtt'))).toBe(false);
  });
});
