import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { demoVideoSessionId } from '../../src/cli/demo.js';
import { seedDemoClipAndReel } from '../../src/clips/demo-clips.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/net.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { DEMO_TEST_PLAN, demoSessions } from '../../src/cli/demo.js';
import { demoTranscripts } from '../../src/transcripts/demo-transcripts.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasFfmpeg } from '../helpers/videos.js';
import { cliSandbox, type CliSandbox } from './run-cli.js';

const run = promisify(execFile);

interface DemoJson {
  clientId: string;
  clientSecret: string;
  testId: string;
  workspaceId: string;
  authUrl: string;
  baseUrl: string;
  authorizationServerId: string;
  keptSavedCredential: boolean;
  revokedClientIds: string[];
  mediaSessionId: string;
  clipId: string | null;
  reelId: string | null;
}

interface SessionsPage {
  testId: string;
  sessions: { sessionId: string; audienceId: string | null; status: string; startTime: string; finishTime: string | null }[];
  meta: { pagination: Record<string, number> };
}

async function hasCommand(name: string): Promise<boolean> {
  return run('bash', ['-c', `command -v ${name}`]).then(
    () => true,
    () => false,
  );
}

describe('results-api demo', () => {
  let cli: CliSandbox;
  let t: TestApp;
  let demo: DemoJson;

  async function mintToken(serverId: string, scope: string, clientId: string, clientSecret: string): Promise<Response> {
    return fetch(`${t.url}/oauth2/${serverId}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope, client_id: clientId, client_secret: clientSecret }),
    });
  }

  beforeAll(async () => {
    cli = cliSandbox();
    // Hosts under .test never resolve (RFC 2606): demo's check of the server stays on this machine.
    demo = await cli.json<DemoJson>(['demo'], { PUBLIC_URL: 'https://results.example.test', AUTH_URL: 'https://auth.example.test' });
    // The CLI ran in the sandbox, storing media under its ./data/media (the default MEDIA_URL).
    t = await startTestApp({ env: { DATABASE_URL: cli.databaseUrl, MEDIA_URL: `file:${join(cli.dir, 'data', 'media')}` } });
  });
  afterAll(async () => {
    await t?.close();
    cli.cleanup();
  });

  it('prints exactly the documented JSON object', () => {
    expect(demo).toEqual({
      clientId: expect.stringMatching(/^0oa[0-9A-Za-z]{17}$/),
      clientSecret: expect.stringMatching(/^[\w-]{43}$/),
      testId: '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f',
      workspaceId: '5b3c2a1e-7d4f-4e8a-9c6b-1a2b3c4d5e6f',
      authUrl: 'https://auth.example.test',
      baseUrl: 'https://results.example.test',
      authorizationServerId: t.runtime.servers.custom.id,
      keptSavedCredential: false,
      revokedClientIds: [],
      mediaSessionId: demoVideoSessionId(),
      clipId: hasFfmpeg() ? expect.stringMatching(/^[0-9a-f-]{36}$/) : null,
      reelId: hasFfmpeg() ? expect.stringMatching(/^[0-9a-f-]{36}$/) : null,
    });
  });

  it('puts the video, clip and reel on the newest completed session: the first the list shows', async () => {
    const tokenRes = await mintToken(demo.authorizationServerId, 'studies:read', demo.clientId, demo.clientSecret);
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const headers = { authorization: `Bearer ${access_token}` };
    const page = (await (await fetch(`${t.url}/api/v2/sessionResults?testId=${demo.testId}&limit=1`, { headers })).json()) as SessionsPage;
    expect(page.sessions[0]!.sessionId).toBe(demo.mediaSessionId);
    if (!hasFfmpeg()) return;
    const clips = (await (await fetch(`${t.url}/api/v2/sessionResults/${demo.mediaSessionId}/clips`, { headers })).json()) as { clips: { uuid: string }[] };
    expect(clips.clips.map((c) => c.uuid)).toEqual([demo.clipId]);
    const reels = (await (await fetch(`${t.url}/api/v2/testResults/${demo.testId}/highlightreels`, { headers })).json()) as { reels: { uuid: string }[] };
    expect(reels.reels.map((r) => r.uuid)).toEqual([demo.reelId]);
  });

  it('seeds a workspace, a test and an API user who is a member', async () => {
    expect(await cli.json(['workspaces', 'list'])).toEqual([expect.objectContaining({ id: demo.workspaceId, name: 'Demo workspace' })]);
    expect(await cli.json(['tests', 'list', '--workspace', demo.workspaceId])).toEqual([
      expect.objectContaining({ id: demo.testId, title: 'Demo test: checkout flow survey', productType: 'THINK_OUT_LOUD', sessionCount: 60, sessionsByStatus: { ABANDONED: 6, COMPLETE: 42, IN_PROGRESS: 6, SCREENED_OUT: 6 } }),
    ]);
    const [test] = (await cli.json(['tests', 'list', '--workspace', demo.workspaceId])) as { plan: { tasks: unknown[]; taskGroups: unknown[] } }[];
    expect(test!.plan.tasks).toHaveLength(20);
    expect(test!.plan.taskGroups).toHaveLength(4);
    expect(await cli.json(['members', 'list', '--workspace', demo.workspaceId])).toEqual([
      expect.objectContaining({ email: 'demo@example.com' }),
    ]);
  });

  it('prints credentials that mint a token (form A) and list sessions', async () => {
    const tokenRes = await mintToken('default', 'public_api.read', demo.clientId, demo.clientSecret);
    expect(tokenRes.status).toBe(200);
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const res = await fetch(`${t.url}/v2/sessionResults?testId=${demo.testId}&limit=10&offset=0`, { headers: { token: access_token } });
    expect(res.status).toBe(200);
    const page = (await res.json()) as SessionsPage;
    expect(page.meta.pagination).toEqual({ limit: 10, offset: 0, totalCount: 42 });
    expect(page.sessions).toHaveLength(10);
  });

  it('prints credentials that mint a token (form B) and list the completed sessions, with every kind of value', async () => {
    const tokenRes = await mintToken(demo.authorizationServerId, 'studies:read', demo.clientId, demo.clientSecret);
    expect(tokenRes.status).toBe(200);
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const res = await fetch(`${t.url}/api/v2/sessionResults?testId=${demo.testId}&rowsPerPage=500&pageNumber=1`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(res.status).toBe(200);
    const { sessions } = (await res.json()) as SessionsPage;
    expect(sessions).toHaveLength(42);
    expect(new Set(sessions.map((s) => s.status))).toEqual(new Set(['COMPLETE']));
    expect(sessions.filter((s) => s.audienceId === null).length).toBeGreaterThan(0);
    expect(new Set(sessions.map((s) => s.audienceId)).size).toBeGreaterThan(2);
    expect(new Set(sessions.map((s) => s.startTime)).size).toBeLessThan(42); // a tie, ordered by sessionId
  });

  it('seeds details with answers of every task type, and a QX task group the QXscores are computed from', async () => {
    const tokenRes = await mintToken(demo.authorizationServerId, 'studies:read', demo.clientId, demo.clientSecret);
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const headers = { authorization: `Bearer ${access_token}` };
    const page = (await (await fetch(`${t.url}/api/v2/sessionResults?testId=${demo.testId}&limit=1`, { headers })).json()) as SessionsPage;
    const res = await fetch(`${t.url}/api/v3/sessionResults/${page.sessions[0]!.sessionId}`, { headers });
    expect(res.status).toBe(200);
    const details = (await res.json()) as {
      sessionParticipant: { demographicsInfo: unknown[] } | null;
      taskGroups: { type: string; response: unknown }[];
      tasks: { type: string; response: { answer: Record<string, unknown> | null } | null }[];
    };
    expect(details.sessionParticipant!.demographicsInfo).toHaveLength(2);
    expect(new Set(details.tasks.map((task) => task.type))).toEqual(
      new Set(['URL', 'BLANK', 'MULTIPLE_CHOICE', 'RATING_SCALE', 'FIGMA', 'NPS', 'IMAGE', 'RANK_ORDER', 'WRITTEN', 'MATRIX']),
    );
    expect(details.tasks.every((task) => task.response !== null)).toBe(true);
    expect(details.taskGroups.map((g) => g.type)).toEqual(['UNRECOGNIZED', 'UNRECOGNIZED', 'QX_SCORE', 'BALANCED_COMPARISON']);
    const qx = (await (await fetch(`${t.url}/api/v2/testResults/${demo.testId}/qxScores`, { headers })).json()) as {
      qxScores: { qxScore: number | null; values: { behavioral: number[] | null } }[];
      meta: { totalQxTasks: number; completes: number };
    };
    expect(qx.meta).toEqual({ totalQxTasks: 1, completes: 42 });
    expect(qx.qxScores[0]!.qxScore).toBeGreaterThan(0);
    expect(qx.qxScores[0]!.values.behavioral).toHaveLength(2);
  });

  it('seeds transcripts: the API serves one per transcribed completed session, and a 404 for the others', async () => {
    const tokenRes = await mintToken(demo.authorizationServerId, 'studies:read', demo.clientId, demo.clientSecret);
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const transcript = (sessionId: string) =>
      fetch(`${t.url}/api/v2/sessionResults/${sessionId}/transcript`, { headers: { authorization: `Bearer ${access_token}` } });
    const [first] = demoTranscripts(DEMO_TEST_PLAN, demoSessions());
    const res = await transcript(first!.sessionId);
    expect(res.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
    expect(await res.text()).toBe(first!.vtt);
    const transcribed = new Set(demoTranscripts(DEMO_TEST_PLAN, demoSessions()).map((x) => x.sessionId));
    const silent = demoSessions().find((x) => x.status === 'COMPLETE' && !transcribed.has(x.sessionId))!;
    expect((await transcript(silent.sessionId)).status).toBe(404);
  });

  it.skipIf(!hasFfmpeg())('seeds a clip of the demo video and a highlight reel of it, once', async () => {
    // What a second `demo` does to them (running the command again would revoke the credential the other tests use).
    await seedDemoClipAndReel(t.runtime, demoVideoSessionId(), { actor: 'test' });
    const clips = await t.runtime.store.clips.listClips(demoVideoSessionId());
    expect(clips).toMatchObject([{ startMs: 0, endMs: 3000, status: 'GENERATING' }]);
    expect(await t.runtime.store.reels.listReels(demo.testId)).toMatchObject([{ clipIds: [clips[0]!.id] }]);
  });

  it.skipIf(!hasFfmpeg())('seeds a short generated video for one session, which the API links to', async () => {
    const tokenRes = await mintToken(demo.authorizationServerId, 'studies:read', demo.clientId, demo.clientSecret);
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const res = await fetch(`${t.url}/api/v2/sessionResults/${demoVideoSessionId()}/videoDownloadUrl`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(res.status).toBe(200);
    const link = new URL(((await res.json()) as { videoUrl: string }).videoUrl);
    const video = await fetch(`${t.url}${link.pathname}${link.search}`);
    expect(video.status).toBe(200);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    expect((await video.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    expect(await t.runtime.store.videos.findVideo(demoVideoSessionId())).toMatchObject({ width: 640, height: 360, hasAudio: true });
  });

  describe('run again', () => {
    let output: string;
    beforeAll(async () => {
      // A disabled demo user is enabled again, so the printed credentials always work.
      await cli.json(['users', 'disable', '--email', 'demo@example.com']);
      const result = await cli.run(['demo'], { PUBLIC_URL: t.url });
      expect(result).toMatchObject({ code: 0, stderr: '' });
      output = result.stdout;
    });

    it('revokes the previous demo credential and changes no data', async () => {
      const old = await mintToken('default', 'public_api.read', demo.clientId, demo.clientSecret);
      expect(old.status).toBe(401);
      expect(((await old.json()) as { error: string }).error).toBe('invalid_client');
      const credentials = await cli.json<{ email: string; status: string }[]>(['credentials', 'list']);
      expect(credentials.map((c) => c.status)).toEqual(['revoked', 'active']);
      expect(await cli.json(['tests', 'list', '--workspace', demo.workspaceId])).toEqual([expect.objectContaining({ sessionCount: 60 })]);
      expect(await cli.json(['workspaces', 'list'])).toHaveLength(1);
    });

    it('says which credential it replaced', () => {
      expect(output).toContain(`Client credentials of demo@example.com (replacing ${demo.clientId}, now revoked: its secret no longer works):`);
    });

    it('says which session has the video, clip and highlight reel', () => {
      expect(output).toContain(`Session ${demoVideoSessionId()} (the newest completed one, first in the list) ha`);
    });

    it('prints the credentials once, with the warning', () => {
      expect(output).toMatch(/^ {2}client_id: +0oa\w{17}$/m);
      expect(output).toMatch(/^ {2}client_secret: +[\w-]{43}$/m);
      expect(output).toContain('The client secret is shown only this once');
    });

    /** The commands under a "# Form X" heading, as printed. */
    const commandsOf = (form: 'A' | 'B') => {
      const start = output.indexOf(`# Form ${form}`);
      expect(start).toBeGreaterThanOrEqual(0);
      const block = output.slice(start).split('\n\n')[0]!;
      return block.split('\n').slice(1).join('\n');
    };

    it.each(['A', 'B'] as const)('prints form %s curl commands that work when pasted into bash', async (form) => {
      const canRun = (await hasCommand('curl')) && (await hasCommand('bash'));
      expect.soft(canRun, 'curl and bash are needed to run the printed commands').toBe(true);
      if (!canRun) return;
      const script = commandsOf(form);
      expect(script).toContain(form === 'A' ? `${t.url}/oauth2/default/v1/token` : `${t.url}/oauth2/${t.runtime.servers.custom.id}/v1/token`);
      const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${script}`], { env: { PATH: process.env.PATH ?? '' } });
      const page = JSON.parse(stdout) as SessionsPage;
      expect(page.sessions).toHaveLength(10);
      expect(page.meta.pagination).toEqual(
        form === 'A'
          ? { limit: 10, offset: 0, totalCount: 42 }
          : { limit: 10, offset: 0, totalCount: 42, rowsPerPage: 10, pageNumber: 1, totalPages: 5 },
      );
    });
  });
});

/** The bash commands printed under "# Form X". */
function commandsIn(output: string, form: 'A' | 'B'): string {
  const start = output.indexOf(`# Form ${form}`);
  if (start < 0) throw new Error(`no "# Form ${form}" in the output:\n${output}`);
  return output.slice(start).split('\n\n')[0]!.split('\n').slice(1).join('\n');
}

/**
 * Runs a script as pasted into bash. HOME is a scratch directory: bash reads ~/.bashrc when its
 * stdin is a socket (as Node's pipes are), and the user's must not speak in the test.
 */
const bash = (script: string) =>
  run('bash', ['-c', script], { env: { PATH: process.env.PATH ?? '', HOME: tmpdir() } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );

describe('results-api demo, with the server on a non-default PORT', () => {
  let cli: CliSandbox;
  let server: ServerProcess;
  let port: number;

  beforeAll(async () => {
    cli = cliSandbox();
    port = await freePort();
    // As a newcomer would: `PORT=… npm start` in one terminal, `PORT=… results-api demo` in another.
    server = await startServerProcess({ ...cli.env, PORT: String(port), LOG_LEVEL: 'info' }); // it logs its address at info
  });
  afterAll(async () => {
    await server?.stop();
    cli.cleanup();
  });

  it('prints commands for that port which work, each answer ending with a newline', async () => {
    const canRun = (await hasCommand('curl')) && (await hasCommand('bash'));
    expect.soft(canRun, 'curl and bash are needed to run the printed commands').toBe(true);
    if (!canRun) return;
    const result = await cli.run(['demo'], { PORT: String(port) });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`The server at http://localhost:${port} answers.`);
    const urls = result.stdout.match(/https?:\/\/[^\s'"]+/g) ?? [];
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const url of urls) expect(url).toMatch(new RegExp(`^http://localhost:${port}(/|$)`));

    // Both forms pasted one after the other: two JSON documents, one a line.
    const { code, stdout, stderr } = await bash(`${commandsIn(result.stdout, 'B')}\n${commandsIn(result.stdout, 'A')}`);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout.endsWith('\n')).toBe(true);
    const pages = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as SessionsPage);
    expect(pages.map((p) => p.sessions.length)).toEqual([10, 10]);
  });

  it('prints a token command that says why there is no token (a wrong secret), and stops there', async () => {
    const canRun = (await hasCommand('curl')) && (await hasCommand('bash'));
    if (!canRun) return;
    const result = await cli.run(['demo'], { PORT: String(port) });
    expect(result.code).toBe(0);
    const wrongSecret = commandsIn(result.stdout, 'B').replace(/client_secret=[\w-]+/, 'client_secret=not-the-secret');
    const { code, stdout, stderr } = await bash(wrongSecret);
    expect(code).toBe(1);
    expect(stdout).toBe(''); // the listing did not run with an empty token
    expect(stderr).toMatch(/^error: no access token: invalid_client: Client authentication failed\./);
    expect(stderr).not.toContain('undefined');
  });

  it('with --json, says which credential it revoked, in the JSON and on stderr', async () => {
    const first = await cli.json<DemoJson>(['demo'], { PORT: String(port) });
    const second = await cli.run(['demo', '--json'], { PORT: String(port) });
    expect(second.code).toBe(0);
    const json = JSON.parse(second.stdout) as DemoJson;
    expect(json.revokedClientIds).toEqual([first.clientId]);
    expect(json).toMatchObject({ authUrl: `http://localhost:${port}`, baseUrl: `http://localhost:${port}` });
    expect(second.stderr).toBe(`note: revoked the earlier demo credential ${first.clientId} of demo@example.com; only the one printed now works\n`);
  });

  it('keeps the credential saved in the credentials file while it works; --new-credential replaces it', async () => {
    const env = { PORT: String(port) };
    const saved = await cli.json<DemoJson>(['demo'], env);
    const file = join(cli.env.XDG_CONFIG_HOME!, 'results-api', 'credentials.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(saved), { mode: 0o600 });

    const again = await cli.run(['demo', '--json'], env);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(again.stdout)).toMatchObject({ clientId: saved.clientId, clientSecret: saved.clientSecret, keptSavedCredential: true, revokedClientIds: [] });
    const text = await cli.run(['demo'], env);
    expect(text.stdout).toContain('Client credentials of demo@example.com (kept: the saved one still works; `demo --new-credential` replaces it):');
    // What the credentials file is for: the API-user commands, which still get a token.
    expect((await cli.run(['token'], env)).code).toBe(0);

    const fresh = await cli.json<DemoJson>(['demo', '--new-credential'], env);
    expect(fresh).toMatchObject({ keptSavedCredential: false, revokedClientIds: [saved.clientId] });
    expect(fresh.clientId).not.toBe(saved.clientId);
    expect((await cli.run(['token'], env)).code).not.toBe(0);
    // A saved credential that no longer works is replaced, and the new one is then kept.
    writeFileSync(file, JSON.stringify(fresh), { mode: 0o600 });
    expect(await cli.json<DemoJson>(['demo'], env)).toMatchObject({ clientId: fresh.clientId, keptSavedCredential: true });
  });

  it('--url names the address the server logged', async () => {
    const result = await cli.json<DemoJson>(['demo', '--url', `${server.url}/`]);
    expect(result).toMatchObject({ authUrl: server.url, baseUrl: server.url });
  });

  it('warns when no server of this deployment answers there, and refuses a bad --url', async () => {
    const elsewhere = await freePort();
    const result = await cli.run(['demo'], { PORT: String(elsewhere) });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `warning: no server answers at http://localhost:${elsewhere} (ECONNREFUSED); the commands printed below need the server running there\n`,
    );
    expect(result.stdout).toContain('Start the server first');

    const other = cliSandbox();
    try {
      const foreign = await other.run(['demo', '--json'], { PORT: String(port) });
      expect(foreign.code).toBe(0);
      expect(foreign.stderr).toMatch(new RegExp(`^warning: the server at http://localhost:${port} belongs to another deployment`));
    } finally {
      other.cleanup();
    }

    const bad = await cli.run(['demo', '--url', 'localhost:8080']);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toMatch(/^error: --url must be/);
  });
});
