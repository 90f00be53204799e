/**
 * `results-api videos import` and `videos download`, run as users run them (the built CLI),
 * on small videos made with ffmpeg's test sources.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed, seedTest, type Seeded } from '../helpers/seed.js';
import { freePort } from '../helpers/net.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasFfmpeg, makeVideo, truncatedCopy } from '../helpers/videos.js';
import { runCli } from './run-cli.js';

describe.skipIf(!hasFfmpeg())('results-api videos', () => {
  let t: TestApp;
  let s: Seeded;
  let dir: string;
  let good: string;
  let other: string;
  /** What a CLI on the server's machine sees: the same database and media storage. */
  let operator: Record<string, string>;
  /** What an API user's machine sees: credentials and the server's URL only. */
  let apiUser: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'results-api-videos-cli-'));
    const media = join(dir, 'media');
    // Links name PUBLIC_URL: the server listens exactly there, so a downloader can follow them.
    const port = await freePort();
    t = await startTestApp({ port, env: { MEDIA_URL: `file:${media}`, PUBLIC_URL: `http://127.0.0.1:${port}` } });
    s = await seed(t.runtime, { sessions: 4 });
    [good, other] = await Promise.all([makeVideo(dir, 'good.mp4', { seconds: 2 }), makeVideo(dir, 'other.mp4', { seconds: 1 })]);
    const base = { PATH: process.env.PATH ?? '', HOME: dir };
    operator = { ...base, DATABASE_URL: t.databaseUrl, MEDIA_URL: `file:${media}`, LOG_LEVEL: 'silent', BASE_URL: t.url };
    apiUser = {
      ...base,
      RESULTS_API_CLIENT_ID: s.clientId,
      RESULTS_API_CLIENT_SECRET: s.clientSecret,
      RESULTS_API_BASE_URL: t.url,
      RESULTS_API_AUTH_SERVER_ID: t.runtime.servers.custom.id,
    };
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const session = (i: number) => s.sessions[i]!.sessionId;

  it('import --session: imported, then unchanged; --json says so', async () => {
    const first = await runCli(['videos', 'import', '--session', session(0), good], operator);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^imported +.*good\\.mp4 as the video of session ${session(0)} \\(2\\.0 s, 320x240, with audio\\)\\n$`));
    const again = await runCli(['videos', 'import', '--session', session(0).toUpperCase(), good, '--json'], operator);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ results: [{ sessionId: session(0), outcome: 'unchanged' }] });
    expect((await t.runtime.store.videos.findVideo(session(0)))?.sizeBytes).toBe(statSync(good).size);
  });

  it('import --session refuses a truncated file and a file that is not a video, saying why, exit 1', async () => {
    const cut = truncatedCopy(good, join(dir, 'cut.mp4'));
    const notVideo = join(dir, 'notes.mp4');
    writeFileSync(notVideo, 'not a video\n');
    const truncated = await runCli(['videos', 'import', '--session', session(1), cut], operator);
    expect(truncated.code).toBe(1);
    expect(truncated.stderr).toMatch(/^error: .*cut\.mp4: not a playable video: it is truncated.*; nothing was imported\n$/);
    const text = await runCli(['videos', 'import', '--session', session(1), notVideo], operator);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/notes\.mp4: not a (playable video|video container)/);
    expect(await t.runtime.store.videos.findVideo(session(1))).toBeNull();
  });

  it('import refuses usage mistakes before touching anything (exit 2)', async () => {
    for (const args of [
      ['videos', 'import', good],
      ['videos', 'import', '--session', session(1), '--test', s.testId, good],
      ['videos', 'import', '--session', 'nope', good],
      ['videos', 'import', '--session', session(1), join(dir, 'missing.mp4')],
      ['videos', 'import', '--test', s.testId, good],
    ]) {
      const result = await runCli(args, operator);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^error: /m);
    }
    const unknown = await runCli(['videos', 'import', '--session', randomUUID(), good], operator);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no session with id/);
  });

  it("import --test DIR: every <sessionId>.<ext>, refusing bad names and other tests' sessions, exit 1 when any is refused", async () => {
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    copyFileSync(good, join(folder, `${session(1)}.mp4`));
    copyFileSync(other, join(folder, `${session(2).toUpperCase()}.mp4`));
    copyFileSync(good, join(folder, 'holiday.mp4'));
    const foreign = await seedTest(t.runtime, s.workspaceId, [{ sessionId: randomUUID(), audienceId: null, status: 'COMPLETE', startTime: 1, finishTime: 2 }]);
    const foreignSession = (await t.runtime.store.sessions.listSessions(foreign, 0, 1))[0]!.sessionId;
    copyFileSync(good, join(folder, `${foreignSession}.mp4`));
    writeFileSync(join(folder, '.DS_Store'), 'x');
    const result = await runCli(['videos', 'import', '--test', s.testId, folder, '--json'], operator);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error: 2 of 4 files refused; the others were imported/);
    const outcomes = (JSON.parse(result.stdout) as { results: { file: string; outcome: string; error?: string }[] }).results;
    const byName = Object.fromEntries(outcomes.map((o) => [o.file.slice(folder.length + 1), o]));
    expect(byName[`${session(1)}.mp4`]).toMatchObject({ outcome: 'inserted' });
    expect(byName[`${session(2).toUpperCase()}.mp4`]).toMatchObject({ outcome: 'inserted' });
    expect(byName['holiday.mp4']).toMatchObject({ outcome: 'refused', error: 'the name is not <sessionId>.<extension>' });
    expect(byName[`${foreignSession}.mp4`]).toMatchObject({ outcome: 'refused', error: expect.stringMatching(/belongs to another test/) });
    expect(await t.runtime.store.videos.findVideo(foreignSession)).toBeNull();
  });

  it('download --test: every video through the API; again: nothing fetched twice', async () => {
    const out = join(dir, 'download');
    const result = await runCli(['videos', 'download', '--test', s.testId, '--out', out], apiUser);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^3 downloaded, 0 resumed, 0 already present, 1 without a video, 0 failed \(4 completed sessions\)\n$/);
    expect(readdirSync(out).sort()).toEqual([session(0), session(1), session(2)].map((id) => `${id}.mp4`).sort());
    expect(readFileSync(join(out, `${session(0)}.mp4`)).equals(readFileSync(good))).toBe(true);
    expect(readFileSync(join(out, `${session(2)}.mp4`)).equals(readFileSync(other))).toBe(true);
    const again = await runCli(['videos', 'download', '--test', s.testId, '--out', out], apiUser);
    expect(again.stdout).toMatch(/^0 downloaded, 0 resumed, 3 already present/);
  });

  it('download resumes a file cut short with Range, and ends byte for byte', async () => {
    const out = join(dir, 'resume');
    mkdirSync(out);
    const bytes = readFileSync(good);
    writeFileSync(join(out, `${session(0)}.mp4.part`), bytes.subarray(0, 10_000));
    const result = await runCli(['videos', 'download', '--test', s.testId, '--out', out, '--json'], apiUser);
    expect(result.code).toBe(0);
    const videos = (JSON.parse(result.stdout) as { videos: { sessionId: string; outcome: string; bytes?: number }[] }).videos;
    expect(videos.find((v) => v.sessionId === session(0))).toMatchObject({ outcome: 'resumed', bytes: bytes.length });
    expect(readFileSync(join(out, `${session(0)}.mp4`)).equals(bytes)).toBe(true);
    expect(readdirSync(out).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('download: a test the user cannot see is an error naming it (exit 1)', async () => {
    const result = await runCli(['videos', 'download', '--test', randomUUID(), '--out', join(dir, 'none')], apiUser);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Test not found/);
  });
});

