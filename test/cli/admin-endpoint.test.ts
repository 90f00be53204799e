/**
 * Hydra's model: the CLI acts through the admin API (`--endpoint`) on a machine without
 * DATABASE_URL, authenticated by an admin API client, and prints what it prints locally.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTestVideo } from '../../src/media/ffmpeg/test-video.js';
import { freePort } from '../helpers/net.js';
import { hasFfmpeg } from '../helpers/videos.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { cliSandbox, runCli, type CliSandbox } from './run-cli.js';

describe('results-api <command> --endpoint (no DATABASE_URL)', () => {
  let cli: CliSandbox;
  let server: ServerProcess;
  let endpoint: string;
  let remoteEnv: Record<string, string>;
  const remote = (args: string[], extra: Record<string, string> = {}) => runCli(args, { ...remoteEnv, ...extra }, join(cli.dir, 'elsewhere'));

  beforeAll(async () => {
    cli = cliSandbox();
    server = await startServerProcess({ DATABASE_URL: cli.databaseUrl, MEDIA_URL: `file:${join(cli.dir, 'media')}` });
    endpoint = /"adminAddress":"(http:\/\/[^"]+)"/.exec(server.lines.join('\n'))![1]!;
    await cli.json(['admins', 'create', '--email', 'ops@example.com', '--role', 'operator']);
    const client = await cli.json<{ clientId: string; clientSecret: string }>(['admins', 'clients', 'create', '--email', 'ops@example.com']);
    // Only what a workstation has: PATH, HOME, the endpoint and the admin client; no database.
    remoteEnv = {
      PATH: process.env.PATH ?? '',
      HOME: cli.dir,
      RESULTS_API_ENDPOINT: endpoint,
      RESULTS_API_ADMIN_CLIENT_ID: client.clientId,
      RESULTS_API_ADMIN_CLIENT_SECRET: client.clientSecret,
    };
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(cli.dir, 'elsewhere'));
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    cli?.cleanup();
  });

  it('runs the operator commands through the admin API and prints what the local command prints', async () => {
    const created = await remote(['users', 'create', '--email', 'ana@example.com']);
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(/^created user ana@example\.com \(id [0-9a-f-]{36}\)\n$/);

    const ws = await remote(['workspaces', 'create', '--name', 'Remote Lab', '--json']);
    expect(ws.code).toBe(0);
    const workspace = JSON.parse(ws.stdout) as { id: string };
    // A workspace named by name is looked up through the API too.
    const member = await remote(['members', 'add', '--workspace', 'Remote Lab', '--email', 'ana@example.com']);
    expect(member.stdout).toBe(`added ana@example.com to workspace ${workspace.id}\n`);
    const test = await remote(['tests', 'create', '--workspace', workspace.id, '--title', 'Remote test', '--json']);
    expect(test.code).toBe(0);

    const issued = await remote(['credentials', 'issue', '--email', 'ana@example.com', '--json']);
    const credential = JSON.parse(issued.stdout) as { clientId: string; clientSecret: string; tokenUrl: string };
    const token = await fetch(`${server.url}${new URL(credential.tokenUrl).pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.clientId, client_secret: credential.clientSecret }),
    });
    expect(token.status).toBe(200);

    // Same human output either way, for every listing.
    for (const args of [['users', 'list'], ['workspaces', 'list'], ['credentials', 'list'], ['members', 'list', '--workspace', workspace.id], ['keys', 'list']]) {
      const [here, there] = await Promise.all([cli.run(args), remote(args)]);
      expect(there, args.join(' ')).toEqual(here);
    }
    // An import uploads the file; a bad line is reported as the local command reports it.
    const testId = (JSON.parse(test.stdout) as { id: string }).id;
    const good = cli.file('good.csv', `sessionId,audienceId,status,startTime,finishTime\n${crypto.randomUUID()},,COMPLETE,2026-11-01T10:00:00Z,2026-11-01T10:20:00Z\n`);
    const imported = await remote(['sessions', 'import', '--test', testId, good]);
    expect(imported).toMatchObject({ code: 0, stdout: `imported ${good} into test ${testId}: 1 inserted, 0 updated, 0 unchanged\n` });
    const bad = cli.file('bad.csv', `sessionId,audienceId,status,startTime,finishTime\nnot-a-uuid,,COMPLETE,2026-11-01T10:00:00Z,\n`);
    const [badHere, badThere] = await Promise.all([cli.run(['sessions', 'import', '--test', testId, bad]), remote(['sessions', 'import', '--test', testId, bad])]);
    expect(badThere.code).toBe(1);
    expect(badThere.stderr).toBe(badHere.stderr.replace(bad, 'bad.csv'));

    const revoked = await remote(['credentials', 'revoke', '--client-id', credential.clientId]);
    expect(revoked.stdout).toBe(`revoked ${credential.clientId} (ana@example.com); its tokens no longer work\n`);
    const audit = await remote(['audit', '--actor', 'admin:ops@example.com', '--action', 'credential', '--json']);
    expect((JSON.parse(audit.stdout) as { action: string }[]).map((e) => e.action)).toEqual(['credential.issue', 'credential.revoke']);
    // Nothing was opened where the commands ran.
    expect(existsSync(join(cli.dir, 'elsewhere', 'data'))).toBe(false);
  });

  it.skipIf(!hasFfmpeg())('makes clips and reels and lists jobs through the admin API, printing what the local commands print', { timeout: 120_000 }, async () => {
    const local = (args: string[]) => cli.run(args, { MEDIA_URL: `file:${join(cli.dir, 'media')}` });
    const workspace = JSON.parse((await local(['workspaces', 'create', '--name', 'Clip Lab', '--json'])).stdout) as { id: string };
    const testId = (JSON.parse((await local(['tests', 'create', '--workspace', workspace.id, '--title', 'Clips', '--json'])).stdout) as { id: string }).id;
    const sessionId = crypto.randomUUID();
    const file = cli.file('one.csv', `sessionId,audienceId,status,startTime,finishTime\n${sessionId},,COMPLETE,2026-11-01T10:00:00Z,2026-11-01T10:20:00Z\n`);
    expect((await local(['sessions', 'import', '--test', testId, file])).code).toBe(0);
    const video = join(cli.dir, 'session.mp4');
    await generateTestVideo(video, { seconds: 4 });
    expect((await local(['videos', 'import', '--session', sessionId, video])).code).toBe(0);

    // A refusal reads the same either way.
    const tooLong = ['clips', 'create', '--session', sessionId, '--start-ms', '0', '--end-ms', '9000', '--name', 'x'];
    const [tooLongHere, tooLongThere] = await Promise.all([local(tooLong), remote(tooLong)]);
    expect(tooLongThere).toMatchObject({ code: 1, stderr: tooLongHere.stderr });
    expect(tooLongThere.stderr).toMatch(/past its end/);

    const created = await remote(['clips', 'create', '--session', sessionId, '--start-ms', '500', '--end-ms', '1500', '--name', 'Hesitation', '--json']);
    expect(created.code).toBe(0);
    const clip = JSON.parse(created.stdout) as { clipUuid: string; status: string };
    expect(clip.status).toBe('GENERATING');
    const second = await remote(['clips', 'create', '--session', sessionId, '--start-ms', '2000', '--end-ms', '3000', '--name', 'Found it']);
    expect(second.stdout).toMatch(new RegExp(`^created clip [0-9a-f-]{36} of session ${sessionId} \\(2000-3000 ms\\); a running server cuts it\n$`));
    // The server's job runner cuts both; then every listing is the same either way.
    const jobsDone = async (kind: string, count: number) => {
      for (let i = 0; ; i++) {
        const done = JSON.parse((await remote(['jobs', 'list', '--kind', kind, '--state', 'done', '--json'])).stdout) as unknown[];
        if (done.length === count) return;
        if (i > 100) throw new Error(`the server did not finish ${kind}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    await jobsDone('clip.generate', 2);
    const clipIds = (JSON.parse((await remote(['clips', 'list', '--session', sessionId, '--json'])).stdout) as { clipUuid: string }[]).map((c) => c.clipUuid);
    const reel = await remote(['reels', 'create', '--test', testId, '--name', 'Highlights', '--clips', clipIds.reverse().join(','), '--json']);
    expect(reel.code).toBe(0);
    expect(JSON.parse(reel.stdout)).toMatchObject({ testId, clipIds, durationMs: 2000, status: 'GENERATING' });
    await jobsDone('reel.generate', 1);
    for (const args of [['clips', 'list', '--session', sessionId], ['clips', 'list', '--session', sessionId, '--json'], ['reels', 'list', '--test', testId], ['jobs', 'list'], ['jobs', 'list', '--json']]) {
      const [here, there] = await Promise.all([local(args), remote(args)]);
      expect(there, args.join(' ')).toEqual(here);
    }
  });

  it('reports refusals as the local command does: one error line, exit 1', async () => {
    const missing = await remote(['credentials', 'revoke', '--client-id', `0oa${'Q'.repeat(17)}`]);
    expect(missing).toMatchObject({ code: 1, stdout: '', stderr: `error: no credential with client id 0oa${'Q'.repeat(17)}\n` });
    const badSecret = await remote(['users', 'list'], { RESULTS_API_ADMIN_CLIENT_SECRET: 'wrong' });
    expect(badSecret.code).toBe(1);
    expect(badSecret.stderr).toMatch(/^error: the admin API refused the admin client: Client authentication failed/);
    const noClient = await runCli(['users', 'list', '--endpoint', endpoint], { PATH: process.env.PATH ?? '' }, cli.dir);
    expect(noClient.code).toBe(2);
    expect(noClient.stderr).toMatch(/^error: --endpoint needs an admin API client/);
    const port = await freePort();
    const down = await remote(['users', 'list'], { RESULTS_API_ENDPOINT: `http://127.0.0.1:${port}` });
    expect(down).toMatchObject({ code: 1, stderr: `error: the admin API at http://127.0.0.1:${port} did not answer: ECONNREFUSED\n` });
  });
});
