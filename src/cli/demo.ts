import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Command } from 'commander';
import { DEMO_DETAIL_GROUPS, DEMO_DETAIL_TASKS, withDemoDetails } from '../details/demo-details.js';
import type { Runtime } from '../runtime.js';
import { parseTestPlan } from '../plans/test-plan.js';
import type { Actor, SessionInput, TestPlan } from '../store/store.js';
import { demoTranscripts } from '../transcripts/demo-transcripts.js';
import { seedDemoVideo } from '../media/demo-video.js';
import { seedDemoClipAndReel } from '../clips/demo-clips.js';
import { withRuntime } from './context.js';
import { SECRET_SHOWN_ONCE, secretLines } from './secret-lines.js';
import { demoCredential, savedCredential, type DemoCredential } from './demo-credential.js';
import { generateDemoData, generatedText, generateOptions, type GeneratedSummary, type GenerateOptions } from './demo-generate.js';
import { checkDemoServer, demoUrls, parseServerUrl, type DemoUrls } from './demo-server.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';

export const DEMO_WORKSPACE_ID = '5b3c2a1e-7d4f-4e8a-9c6b-1a2b3c4d5e6f';
export const DEMO_WORKSPACE_NAME = 'Demo workspace';
export const DEMO_TEST_ID = '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f';
export const DEMO_TEST_TITLE = 'Demo test: checkout flow survey';
export const DEMO_PRODUCT_TYPE = 'THINK_OUT_LOUD';
export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_SESSION_COUNT = 60;

/**
 * A small test plan, so the Legacy (v1) study shows tasks and task groups. Written with
 * readable ids, as a plan file may be; the plan stored and served has the UUIDs they stand for.
 */
const DEMO_PLAN_FILE = {
  id: 'demo-checkout-plan',
  shortTest: false,
  taskGroups: [
    { id: 'demo-initial', type: 'INITIAL' },
    { id: 'demo-main', type: 'MAIN' },
    ...DEMO_DETAIL_GROUPS,
  ],
  tasks: [
    { text: 'Open the shop and find a pair of running shoes.', taskType: 'launch_url', taskGroupId: 'demo-initial', launchUrl: 'https://shop.example.com' },
    { text: 'Add them to the cart and check out as a guest.', taskType: 'blank', taskGroupId: 'demo-main' },
    {
      text: 'Which payment methods did you notice?',
      taskType: 'multiple_choice',
      taskGroupId: 'demo-main',
      choices: ['Card', 'PayPal', 'Invoice'],
      multipleAnswers: true,
    },
    {
      text: 'How easy was checking out?',
      taskType: 'rating_scale',
      taskGroupId: 'demo-main',
      scaleMinimum: 1,
      scaleMaximum: 5,
      lowerEndpoint: 'Very difficult',
      upperEndpoint: 'Very easy',
    },
    // A QX task group and a task of every other type, answered in the sessions' details.
    ...DEMO_DETAIL_TASKS,
  ],
};
export const DEMO_TEST_PLAN: TestPlan = parseTestPlan(DEMO_PLAN_FILE, DEMO_TEST_ID);

/** What `demo --json` prints: everything a script needs to call the API. */
export interface DemoResult extends DemoCredential {
  testId: string;
  workspaceId: string;
  authUrl: string;
  baseUrl: string;
  authorizationServerId: string;
  /** The session with the video, clip and highlight reel: the newest completed one, first in the list. */
  mediaSessionId: string;
  /** Null without ffmpeg (no video, so nothing to cut). */
  clipId: string | null;
  reelId: string | null;
  /** Only with --sessions, --tests or --seed: the generated tests, and how fast their sessions were written. */
  generated?: GeneratedSummary;
}

/** A stable UUID (version 4 layout) derived from a name, so re-running demo changes nothing. */
function nameUuid(name: string): string {
  const b = createHash('sha256').update(`results-api demo ${name}`).digest();
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const STATUSES = ['COMPLETE', 'COMPLETE', 'COMPLETE', 'COMPLETE', 'COMPLETE', 'COMPLETE', 'COMPLETE', 'IN_PROGRESS', 'ABANDONED', 'SCREENED_OUT'];
const AUDIENCES = [nameUuid('audience 1'), nameUuid('audience 2'), nameUuid('audience 3'), null];

/** How many of the demo sessions are complete: the ones the API lists (7 in 10). */
export const DEMO_COMPLETED_COUNT = STATUSES.filter((s) => s === 'COMPLETE').length * (DEMO_SESSION_COUNT / STATUSES.length);

/**
 * Sessions spread over November 2024 with every kind of value an import carries: several
 * statuses (stored and counted; the API lists only the completed ones), null audiences,
 * unfinished sessions (null finishTime), and two completed sessions sharing a startTime
 * (ordered by sessionId).
 */
export function demoSessions(): SessionInput[] {
  const first = Date.UTC(2024, 10, 1, 8, 3, 17, 250);
  return Array.from({ length: DEMO_SESSION_COUNT }, (_, i) => {
    const startTime = first + (i === 21 ? 20 : i) * 41_843_614;
    const status = STATUSES[i % STATUSES.length]!;
    const minutes = 4 + ((i * 7) % 23);
    return {
      sessionId: nameUuid(`session ${i}`),
      audienceId: AUDIENCES[i % AUDIENCES.length]!,
      status,
      startTime,
      finishTime: status === 'IN_PROGRESS' ? null : startTime + minutes * 60_000 + ((i * 1_337) % 60_000),
    };
  });
}

/**
 * The demo session with the video, clip and highlight reel: the newest completed one, which
 * the list shows first (newest first; sessions of one startTime by sessionId, descending).
 */
export function demoVideoSessionId(): string {
  const completed = demoSessions().filter((s) => s.status === 'COMPLETE');
  completed.sort((a, b) => b.startTime - a.startTime || (a.sessionId < b.sessionId ? 1 : -1));
  return completed[0]!.sessionId;
}

/** Seeds (or tops up) the demo data, and keeps the demo user's saved credential working or issues a fresh one. */
async function seedDemo(
  rt: Runtime,
  by: Actor,
  input: { urls: DemoUrls; credential: Parameters<typeof demoCredential>[2]; generate: GenerateOptions | undefined },
): Promise<DemoResult> {
  const { urls, credential } = input;
  const { store } = rt;
  const workspace =
    (await store.directory.getWorkspace(DEMO_WORKSPACE_ID)) ??
    (await store.directory.createWorkspace({ id: DEMO_WORKSPACE_ID, name: DEMO_WORKSPACE_NAME }, by));

  const user = (await store.credentials.findUserByEmail(DEMO_EMAIL)) ?? (await store.credentials.createUser(DEMO_EMAIL, by));
  if (user.status !== 'active') await store.credentials.setUserStatus(DEMO_EMAIL, 'active', by);
  if (!(await store.directory.isMember(workspace.id, DEMO_EMAIL))) await store.directory.addMember(workspace.id, DEMO_EMAIL, by);

  const test =
    (await store.directory.getTest(DEMO_TEST_ID)) ??
    (await store.directory.createTest(
      {
        id: DEMO_TEST_ID,
        workspaceId: workspace.id,
        title: DEMO_TEST_TITLE,
        productType: DEMO_PRODUCT_TYPE,
        orderedBy: { email: DEMO_EMAIL, name: 'Demo researcher' },
        plan: DEMO_TEST_PLAN,
      },
      by,
    ));
  // A demo seeded before details existed, or before its plan's ids were UUIDs, gets the plan its details are checked against.
  if (!isDeepStrictEqual(test.plan, DEMO_TEST_PLAN)) await store.directory.setTestPlan(test.id, DEMO_TEST_PLAN, by);
  await store.sessions.importSessions(test.id, withDemoDetails(demoSessions(), DEMO_TEST_PLAN), by);
  await store.transcripts.importTranscripts(test.id, demoTranscripts(DEMO_TEST_PLAN, demoSessions()), by);
  if (!(await seedDemoVideo(rt, demoVideoSessionId(), by))) process.stderr.write('warning: ffmpeg is not installed, so the demo session has no video (apt-get install ffmpeg)\n');
  const media = await seedDemoClipAndReel(rt, demoVideoSessionId(), by);
  const generated = input.generate && (await generateDemoData(rt, by, { workspaceId: workspace.id, planFile: DEMO_PLAN_FILE, options: input.generate }));
  return {
    ...(await demoCredential(rt, user, credential, by)),
    testId: test.id,
    workspaceId: workspace.id,
    authUrl: urls.authUrl,
    baseUrl: urls.baseUrl,
    authorizationServerId: rt.servers.custom.id,
    mediaSessionId: demoVideoSessionId(),
    clipId: media?.clipId ?? null,
    reelId: media?.reelId ?? null,
    ...(generated ? { generated } : {}),
  };
}

/** Quotes a value for bash, whatever it contains. */
const sh = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * Reads the token response on stdin and prints the access token; otherwise says why on stderr
 * (the RFC 6749 error, whatever else answered, or nothing at all) and exits 1, so the `&&`
 * after it stops there.
 */
const READ_TOKEN =
  `node -e 'const s = require("fs").readFileSync(0, "utf8"); let r = {}; try { r = JSON.parse(s) } catch {} ` +
  `if (r.access_token) console.log(r.access_token); else { console.error("error: no access token: " + ` +
  `(r.error ? [r.error, r.error_description].filter(Boolean).join(": ") : s.trim() || "no answer from the token endpoint")); process.exit(1) }'`;

/** Bash commands that mint a token and list the first page of sessions, for both request forms. */
export function demoCurlCommands(d: DemoResult): { formA: string; formB: string } {
  const tokenRequest = (serverId: string, scope: string) =>
    [
      `TOKEN=$(curl -sS ${sh(`${d.authUrl}/oauth2/${serverId}/v1/token`)} \\`,
      `  -H 'Content-Type: application/x-www-form-urlencoded' \\`,
      `  --data-urlencode ${sh(`client_id=${d.clientId}`)} --data-urlencode ${sh(`client_secret=${d.clientSecret}`)} \\`,
      `  -d grant_type=client_credentials -d scope=${scope} | ${READ_TOKEN}) &&`,
    ].join('\n');
  return {
    formA: [
      tokenRequest('default', 'public_api.read'),
      `curl -sS -w '\\n' ${sh(`${d.baseUrl}/v2/sessionResults?testId=${d.testId}&limit=10&offset=0`)} \\`,
      `  -H 'accept: application/json' -H "token: $TOKEN"`,
    ].join('\n'),
    formB: [
      tokenRequest(d.authorizationServerId, 'studies:read'),
      `curl -sS -w '\\n' ${sh(`${d.baseUrl}/api/v2/sessionResults?testId=${d.testId}&rowsPerPage=10&pageNumber=1`)} \\`,
      `  -H 'Content-Type: application/json' -H "Authorization: Bearer $TOKEN"`,
    ].join('\n'),
  };
}

/** Whether the credential was kept, or which earlier one the fresh one replaces, in a sentence. */
function credentialText(d: DemoResult): string {
  if (d.keptSavedCredential) return 'kept: the saved one still works; `demo --new-credential` replaces it';
  return d.revokedClientIds.length === 0
    ? 'the first demo credential'
    : `replacing ${d.revokedClientIds.join(', ')}, now revoked: ${d.revokedClientIds.length === 1 ? 'its secret no longer works' : 'their secrets no longer work'}`;
}

/** Where the video, clip and reel are, so nobody has to ask every session for its video. */
const mediaText = (d: DemoResult): string =>
  d.clipId === null
    ? `Session ${d.mediaSessionId} (the newest completed one, first in the list) would have the video, clip and highlight reel; without ffmpeg there are none.`
    : [
        `Session ${d.mediaSessionId} (the newest completed one, first in the list) has the video, the clip ${d.clipId}`,
        `and the highlight reel ${d.reelId} of that clip (cut by the running server; a few seconds after it starts).`,
      ].join('\n');

function demoText(d: DemoResult, serverProblem: string | undefined): string {
  const { formA, formB } = demoCurlCommands(d);
  return [
    `Demo data is ready: workspace "${DEMO_WORKSPACE_NAME}" (${d.workspaceId}),`,
    `test "${DEMO_TEST_TITLE}" (${d.testId}) with ${DEMO_SESSION_COUNT} sessions (the API lists the ${DEMO_COMPLETED_COUNT} completed ones),`,
    `API user ${DEMO_EMAIL} (a member of the workspace).`,
    '',
    mediaText(d),
    '',
    ...(d.generated ? [generatedText(d.generated), ''] : []),
    `Client credentials of ${DEMO_EMAIL} (${credentialText(d)}):`,
    '',
    secretLines(d.clientId, d.clientSecret),
    '',
    SECRET_SHOWN_ONCE,
    '',
    serverProblem === undefined
      ? `The server at ${d.baseUrl} answers. Paste into bash:`
      : `Start the server first (npm start, or results-api serve, with the same PORT or PUBLIC_URL; or run demo --url <its address>), then paste into bash:`,
    '',
    `# Form B (current): the custom authorization server ${d.authorizationServerId}, a Bearer token, rowsPerPage/pageNumber paging`,
    formB,
    '',
    '# Form A (earlier): the default authorization server, the `token` header, limit/offset paging',
    formA,
  ].join('\n');
}

type DemoOptions = OutputOptions & { url?: string; config?: string; newCredential?: boolean; sessions?: string; tests?: string; seed?: string };

/** `demo`: everything needed to try the API in one command. */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'seed a demo workspace, test, sessions and API user; print the API user\'s credentials (the saved ones while they work, else fresh ones, revoking the earlier) and curl commands for the running server',
    )
    .option('--url <url>', "the running server's address, as it logged it (default: PUBLIC_URL, or http://localhost:<PORT>)")
    .option('--config <file>', 'the credentials file whose demo credential is kept while it works (default: ~/.config/results-api/credentials.json)')
    .option('--new-credential', 'issue a fresh credential even when the saved one works, revoking it')
    .option('--sessions <n>', 'also generate N sessions (default 1000 when --tests or --seed is given), spread over the generated tests')
    .option('--tests <m>', 'how many tests the generated sessions are spread over (default 1)')
    .option('--seed <s>', 'the seed the generated data follows from: the same seed, the same data (default 1)')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: DemoOptions) => {
      if (options.url !== undefined) parseServerUrl(options.url); // a mistake is refused before anything changes
      const generate = generateOptions(options);
      const credential = { saved: await savedCredential(options.config), fresh: options.newCredential === true };
      const result = await withRuntime((rt, by) => seedDemo(rt, by, { urls: demoUrls(rt.config, options.url), credential, generate }));
      const serverProblem = await checkDemoServer(result, result.authorizationServerId);
      // Said on stderr as well, so that `demo --json > file` does not replace a credential silently.
      if (options.json && result.revokedClientIds.length > 0) {
        process.stderr.write(`note: revoked the earlier demo credential ${result.revokedClientIds.join(', ')} of ${DEMO_EMAIL}; only the one printed now works\n`);
      }
      if (serverProblem !== undefined) {
        process.stderr.write(`warning: ${serverProblem}${options.json ? '' : '; the commands printed below need the server running there'}\n`);
      }
      emit(options, result, () => demoText(result, serverProblem));
    });
}
