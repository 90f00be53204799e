import { createHash } from 'node:crypto';
import type { Command } from 'commander';
import { DEMO_DETAIL_GROUPS, DEMO_DETAIL_TASKS, withDemoDetails } from '../details/demo-details.js';
import { generateClientId, generateClientSecret } from '../oauth/client-secrets.js';
import type { Runtime } from '../runtime.js';
import { emailKey } from '../store/email.js';
import type { Actor, SessionInput, TestPlan } from '../store/store.js';
import { demoTranscripts } from '../transcripts/demo-transcripts.js';
import { seedDemoVideo } from '../media/demo-video.js';
import { seedDemoClipAndReel } from '../clips/demo-clips.js';
import { withRuntime } from './context.js';
import { SECRET_SHOWN_ONCE, secretLines } from './secret-lines.js';
import { checkDemoServer, demoUrls, parseServerUrl, type DemoUrls } from './demo-server.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';

export const DEMO_WORKSPACE_ID = '5b3c2a1e-7d4f-4e8a-9c6b-1a2b3c4d5e6f';
export const DEMO_WORKSPACE_NAME = 'Demo workspace';
export const DEMO_TEST_ID = '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f';
export const DEMO_TEST_TITLE = 'Demo test: checkout flow survey';
export const DEMO_PRODUCT_TYPE = 'THINK_OUT_LOUD';
export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_SESSION_COUNT = 60;

/** A small test plan, so the Legacy (v1) study shows tasks and task groups. */
export const DEMO_TEST_PLAN: TestPlan = {
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

/** What `demo --json` prints: everything a script needs to call the API. */
export interface DemoResult {
  clientId: string;
  clientSecret: string;
  testId: string;
  workspaceId: string;
  authUrl: string;
  baseUrl: string;
  authorizationServerId: string;
  /** The demo user's earlier credentials this run revoked (their secrets no longer work). */
  revokedClientIds: string[];
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

/** The demo session that has a video: the first one (completed, the oldest). */
export const demoVideoSessionId = (): string => demoSessions()[0]!.sessionId;

/** Seeds (or tops up) the demo data and issues the demo user a fresh credential. */
async function seedDemo(rt: Runtime, by: Actor, urls: DemoUrls): Promise<DemoResult> {
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
  // A demo seeded before details existed gets the plan its details are checked against.
  if (test.plan?.tasks.length !== DEMO_TEST_PLAN.tasks.length) await store.directory.setTestPlan(test.id, DEMO_TEST_PLAN, by);
  await store.sessions.importSessions(test.id, withDemoDetails(demoSessions(), DEMO_TEST_PLAN), by);
  await store.transcripts.importTranscripts(test.id, demoTranscripts(DEMO_TEST_PLAN, demoSessions()), by);
  if (!(await seedDemoVideo(rt, demoVideoSessionId(), by))) process.stderr.write('warning: ffmpeg is not installed, so the demo session has no video (apt-get install ffmpeg)\n');
  await seedDemoClipAndReel(rt, demoVideoSessionId(), by);

  // The secret of an earlier run is not stored anywhere, so the only way to print one that
  // works is to replace the credential.
  const revokedClientIds: string[] = [];
  for (const c of await store.credentials.listCredentials()) {
    if (emailKey(c.email) === emailKey(DEMO_EMAIL) && c.revokedAt === null) {
      await store.credentials.revokeCredential(c.clientId, by);
      revokedClientIds.push(c.clientId);
    }
  }
  const clientId = generateClientId();
  const clientSecret = generateClientSecret();
  await store.credentials.createCredential({ clientId, email: DEMO_EMAIL, secretHash: rt.hasher.hash(clientSecret) }, by);

  return {
    clientId,
    clientSecret,
    testId: test.id,
    workspaceId: workspace.id,
    authUrl: urls.authUrl,
    baseUrl: urls.baseUrl,
    authorizationServerId: rt.servers.custom.id,
    revokedClientIds,
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

/** Which earlier credential the fresh one replaces, in a sentence. */
const replacedText = (d: DemoResult): string =>
  d.revokedClientIds.length === 0
    ? 'the first demo credential'
    : `replacing ${d.revokedClientIds.join(', ')}, now revoked: ${d.revokedClientIds.length === 1 ? 'its secret no longer works' : 'their secrets no longer work'}`;

function demoText(d: DemoResult, serverProblem: string | undefined): string {
  const { formA, formB } = demoCurlCommands(d);
  return [
    `Demo data is ready: workspace "${DEMO_WORKSPACE_NAME}" (${d.workspaceId}),`,
    `test "${DEMO_TEST_TITLE}" (${d.testId}) with ${DEMO_SESSION_COUNT} sessions (the API lists the ${DEMO_COMPLETED_COUNT} completed ones),`,
    `API user ${DEMO_EMAIL} (a member of the workspace).`,
    '',
    `Client credentials of ${DEMO_EMAIL} (${replacedText(d)}):`,
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

/** `demo`: everything needed to try the API in one command. */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'seed a demo workspace, test, sessions and API user; print fresh credentials (revoking the earlier demo credential) and curl commands for the running server',
    )
    .option('--url <url>', "the running server's address, as it logged it (default: PUBLIC_URL, or http://localhost:<PORT>)")
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { url?: string }) => {
      if (options.url !== undefined) parseServerUrl(options.url); // a mistake is refused before anything changes
      const result = await withRuntime((rt, by) => seedDemo(rt, by, demoUrls(rt.config, options.url)));
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
