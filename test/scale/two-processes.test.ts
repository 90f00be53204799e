/**
 * Scale-out: two server processes on two ports sharing PostgreSQL and Redis, and a third
 * party (the CLI's runtime) changing data. Every change must hold everywhere within a second.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { rotateSigningKey } from '../../src/oauth/signing-keys.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { describeIfPostgres, uniqueSchemaName } from '../helpers/postgres.js';
import { requireRedis } from '../helpers/redis.js';
import { AdminRepository } from '../../src/store/admins.js';
import { AuditLog } from '../../src/store/audit-log.js';
import { CredentialRepository } from '../../src/store/credentials.js';
import { DirectoryRepository } from '../../src/store/directory.js';
import { SessionDetailsRepository } from '../../src/store/session-details.js';
import { JobRepository } from '../../src/store/jobs.js';
import { ClipRepository } from '../../src/store/clips.js';
import { ReelRepository } from '../../src/store/reels.js';
import { WebhookDeliveryRepository } from '../../src/store/webhook-deliveries.js';
import { WebhookPendingBatches } from '../../src/store/webhook-pending-batches.js';
import { WebhookRepository } from '../../src/store/webhooks.js';
import { SessionRepository } from '../../src/store/sessions.js';
import { SettingsRepository } from '../../src/store/settings.js';
import { SigningKeyRepository } from '../../src/store/signing-keys.js';
import { TokenRevocationRepository } from '../../src/store/token-revocations.js';
import { TranscriptRepository } from '../../src/store/transcripts.js';
import { VideoRepository } from '../../src/store/videos.js';
import { AppRepository } from '../../src/store/apps.js';
import { UserAccountRepository } from '../../src/store/user-accounts.js';
import { createHash } from 'node:crypto';
import { tokenHash } from '../../src/sign-in/secret-tokens.js';
import { makeSessions, seed, type Seeded } from '../helpers/seed.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { within } from '../helpers/net.js';

const redisUrl = await requireRedis();
const by = { actor: 'test' };

async function getToken(server: ServerProcess, runtime: Runtime, s: Seeded): Promise<string> {
  const res = await fetch(`${server.url}/oauth2/${runtime.servers.custom.id}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: s.clientId, client_secret: s.clientSecret }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const list = (server: ServerProcess, s: Seeded, token: string) =>
  fetch(`${server.url}/api/v2/sessionResults?testId=${s.testId}`, { headers: { authorization: `Bearer ${token}` } });

await describeIfPostgres('two server processes sharing PostgreSQL and Redis', (postgresUrl) => {
  const schema = uniqueSchemaName('t_scale');
  const url = new URL(postgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const env = {
    DATABASE_URL: url.href,
    REDIS_URL: redisUrl ?? '',
    AUTH_SERVER_ID: 'ausScaleOutTest000001',
    RATE_LIMIT_API: '1000',
  };
  let cli: Runtime; // what `results-api <command>` would open
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: pg.Client;

  beforeAll(async () => {
    if (!redisUrl) throw new Error('Redis is required for this suite');
    admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    cli = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await cli?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  it('a token minted by one process is accepted by the other', async () => {
    const s = await seed(cli, { sessions: 3 });
    const token = await getToken(a, cli, s);
    const res = await list(b, s, token);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { meta: { pagination: { totalCount: number } } }).meta.pagination.totalCount).toBe(3);
  });

  it('a credential revoked through the CLI is refused by both processes within one second', async () => {
    const s = await seed(cli, { sessions: 1 });
    const token = await getToken(a, cli, s);
    expect((await list(a, s, token)).status).toBe(200);
    expect((await list(b, s, token)).status).toBe(200);
    await cli.store.credentials.revokeCredential(s.clientId, by);
    await within(1000, async () => {
      expect((await list(a, s, token)).status).toBe(401);
      expect((await list(b, s, token)).status).toBe(401);
    });
  });

  it('an app a user revokes (issue 34): its tokens are refused by both processes within one second', async () => {
    const s = await seed(cli, { sessions: 1 });
    const user = (await cli.store.credentials.findUserByEmail(s.email))!;
    const clientId = `0oaApp${crypto.randomUUID().replace(/-/g, '').slice(0, 14)}`;
    await cli.store.apps.createApp({ clientId, name: 'Scale app', clientType: 'public', origin: 'registered', redirectUris: ['http://127.0.0.1/cb'], scopes: ['studies:read'], secretHash: null }, by);
    const verifier = 'v'.repeat(43);
    const code = crypto.randomUUID();
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    await cli.store.apps.createCode({ codeHash: tokenHash(code), clientId, userId: user.id, redirectUri: 'http://127.0.0.1/cb', codeChallenge: challenge, scopes: ['studies:read'], resource: null, expiresAt: Date.now() + 60_000 });
    const res = await fetch(`${a.url}/oauth2/${cli.servers.custom.id}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: 'http://127.0.0.1/cb', client_id: clientId }),
    });
    expect(res.status).toBe(200);
    const token = ((await res.json()) as { access_token: string }).access_token;
    expect((await list(a, s, token)).status).toBe(200);
    expect((await list(b, s, token)).status).toBe(200);
    await cli.store.apps.revokeUserApp(user.id, clientId, by);
    await within(1000, async () => {
      expect((await list(a, s, token)).status).toBe(401);
      expect((await list(b, s, token)).status).toBe(401);
    });
  });

  it('a token revoked at one process (RFC 7009) is refused by the other within one second', async () => {
    const s = await seed(cli, { sessions: 1 });
    const token = await getToken(a, cli, s);
    expect((await list(b, s, token)).status).toBe(200);
    const revoke = await fetch(`${a.url}/oauth2/${cli.servers.custom.id}/v1/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: s.clientId, client_secret: s.clientSecret }),
    });
    expect(revoke.status).toBe(200);
    await within(1000, async () => expect((await list(b, s, token)).status).toBe(401));
  });

  it('a member removed is refused everywhere within one second', async () => {
    const s = await seed(cli, { sessions: 1 });
    const token = await getToken(b, cli, s);
    expect((await list(a, s, token)).status).toBe(200);
    expect((await list(b, s, token)).status).toBe(200);
    await cli.store.directory.removeMember(s.workspaceId, s.email, by);
    await within(1000, async () => {
      expect((await list(a, s, token)).status).toBe(404);
      expect((await list(b, s, token)).status).toBe(404);
    });
  });

  it('the rate limit is one budget across both processes', async () => {
    const s = await seed(cli, { sessions: 1 });
    const token = await getToken(a, cli, s);
    const first = await list(a, s, token);
    const limit = Number(first.headers.get('x-ratelimit-limit'));
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    const second = await list(b, s, token);
    // Unless the window rolled over between the two requests, b saw a's request.
    if (Number(second.headers.get('x-ratelimit-remaining')) !== limit - 1) {
      expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
    }
  });

  it('a key rotation by the CLI is honoured by both: old tokens keep working, new tokens use the new key', async () => {
    const s = await seed(cli, { sessions: 1 });
    const before = await getToken(a, cli, s);
    const kid = await rotateSigningKey(cli.store.signingKeys, cli.clock, by);
    await within(1000, async () => {
      for (const server of [a, b]) {
        const token = await getToken(server, cli, s);
        expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid).toBe(kid);
        for (const verifier of [a, b]) expect((await list(verifier, s, token)).status).toBe(200);
      }
    });
    expect((await list(b, s, before)).status).toBe(200);
    const jwks = (await (await fetch(`${b.url}/oauth2/default/v1/keys`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toContain(kid);
    expect(jwks.keys).toHaveLength(2);
  });

  /**
   * Every repository method, by what it does to the other processes' caches. A method added
   * without a place here fails the completeness check below, so none is left out by accident.
   */
  const repositories = {
    credentials: CredentialRepository,
    directory: DirectoryRepository,
    sessions: SessionRepository,
    sessionDetails: SessionDetailsRepository,
    signingKeys: SigningKeyRepository,
    revocations: TokenRevocationRepository,
    audit: AuditLog,
    settings: SettingsRepository,
    transcripts: TranscriptRepository,
    videos: VideoRepository,
    admins: AdminRepository,
    jobs: JobRepository,
    clips: ClipRepository,
    reels: ReelRepository,
    apps: AppRepository,
    userAccounts: UserAccountRepository,
    webhooks: WebhookRepository,
    webhookDeliveries: WebhookDeliveryRepository,
    webhookBatches: WebhookPendingBatches,
  };
  const readers = new Set([
    'credentials.findUserByEmail', 'credentials.listUsers', 'credentials.listCredentials', 'credentials.findClientForAuth',
    'credentials.findPrincipal', 'directory.listWorkspaces', 'directory.getWorkspace', 'directory.listWorkspacesForMember',
    'directory.listMembers', 'directory.isMember', 'directory.getTest', 'directory.listTests', 'directory.findVisibleTest',
    'sessions.listSessions', 'sessions.listSessionKeys', 'sessions.countSessions', 'sessions.countSessionsByStatus', 'sessions.listCompletedSessions', 'sessions.findSession', 'sessions.findSessions', 'sessions.mediaOf', 'sessions.sequenceNumber', 'sessionDetails.findDetails', 'sessionDetails.listDetails', 'sessionDetails.listCompletedScoring', 'signingKeys.list', 'revocations.isRevoked', 'audit.list',
    'transcripts.findTranscript', 'transcripts.cueCount', 'transcripts.readCues', 'transcripts.allCues',
    'videos.findVideo', 'videos.listVideos',
    'jobs.get', 'jobs.list', 'jobs.countByState', 'clips.findClip', 'clips.listClips', 'clips.listClipsOfTest',
    'reels.findReel', 'reels.findReelByToken', 'reels.listReels', 'reels.countClipsOfTest',
    'webhooks.get', 'webhooks.list', 'webhooks.listDeliveries', 'webhooks.getDelivery', 'webhooks.read', 'webhooks.eventsOf',
    'webhookDeliveries.countByStatus', 'webhookBatches.waiting',
  ]);
  // Writes that nothing cached depends on: they announce nothing, by design.
  const bookkeeping = new Set([
    'credentials.recordClientUse', 'settings.getOrSet', 'videos.saveVideo', 'videos.attachVideo', 'videos.releaseObjects',
    // An audit entry of its own (the guessing throttle's report): the audit log is never cached.
    'audit.record',
    // Cues of transcripts imported before they were stored: no cache holds cues.
    'transcripts.storeMissingCues',
    // The job queue: no request path caches it.
    'jobs.claim', 'jobs.heartbeat', 'jobs.complete', 'jobs.fail', 'jobs.release',
    // Clips: every read goes to the database.
    'clips.createClip', 'clips.retryClip', 'clips.restartClip', 'reels.createReel', 'reels.retryReel', 'reels.restartReel',
    // Webhook events, written inside a job's completing transaction; subscriptions and deliveries: never cached.
    'clips.recordGenerated', 'reels.recordGenerated',
    'webhooks.create', 'webhooks.update', 'webhooks.delete', 'webhooks.rotateSecret', 'webhooks.sendTest', 'webhooks.replay', 'webhooks.disableIn',
    // The import's outbox batches, expanded into events and deliveries: never cached either.
    'webhookBatches.expandNext',
    'webhookDeliveries.claim', 'webhookDeliveries.record', 'webhookDeliveries.succeededIn', 'webhookDeliveries.recordIn', 'webhookDeliveries.succeeded', 'webhookDeliveries.skipped', 'webhookDeliveries.failed', 'webhookDeliveries.end',
  ]);
  // Admin accounts, sessions and clients: read from the database on every admin request, never cached.
  for (const m of ['createAdmin', 'renewSetupLink', 'completeSetup', 'createSession', 'endSession', 'recordTotpStep', 'setPendingTotp', 'enableTotp', 'resetTotp', 'assignWorkspace', 'unassignWorkspace', 'createClient', 'revokeClient']) bookkeeping.add(`admins.${m}`);
  for (const m of ['listAdmins', 'getAdmin', 'findAdminForSignIn', 'findSession', 'pendingTotp', 'assignedWorkspaces', 'administers', 'listClients', 'findClientForAuth']) readers.add(`admins.${m}`);
  // Apps, codes and refresh tokens: read from the database at every use, except apps found at client authentication, cached until
  // any change (a registration needs no announcement: misses are not kept); what tokens depend on (apps, grants) is revoked with `access`,
  // and a client ID metadata document that changes a known app announces it too (apps.saveMetadataApp, among the mutations below).
  for (const m of ['createApp', 'createCode', 'exchangeCode', 'rotateRefreshToken']) bookkeeping.add(`apps.${m}`);
  for (const m of ['findApp', 'listApps', 'approvedApps', 'approvalCovers', 'findGrantPrincipal', 'grantOfRefreshToken', 'findLiveRefreshToken']) readers.add(`apps.${m}`);
  // Users' passwords, TOTP and browser sessions: read from the database on every page, never cached.
  for (const m of ['completeSetup', 'setPassword', 'createSession', 'endSession', 'recordTotpStep', 'setPendingTotp', 'enableTotp', 'resetTotp']) bookkeeping.add(`userAccounts.${m}`);
  for (const m of ['findForSignIn', 'findSession', 'pendingTotp']) readers.add(`userAccounts.${m}`);
  // Private helpers (TypeScript keeps them on the prototype).
  const helpers = new Set(['credentials.credential', 'credentials.requireUsable', 'credentials.liveSecrets', 'jobs.endInError', 'webhookBatches.setAside']);

  it('every mutation of every repository, made by a third process, is heard by both servers', async () => {
    const s = await seed(cli, { sessions: 1 });
    const other = `other-${s.email}`;
    const workspaceId = crypto.randomUUID();
    const testId = crypto.randomUUID();
    const clientId = `0oa${'Z'.repeat(17)}`;
    const imported = makeSessions(2);
    const mutations: Record<string, { topic: string; run: () => Promise<unknown> }> = {
      'credentials.createUser': { topic: 'access', run: () => cli.store.credentials.createUser(other, by) },
      'credentials.setUserStatus': { topic: 'access', run: () => cli.store.credentials.setUserStatus(other, 'disabled', by) },
      'credentials.createCredential': { topic: 'access', run: () => cli.store.credentials.createCredential({ clientId, email: other, secretHash: 'h1' }, by) },
      'credentials.addCredentialSecret': { topic: 'access', run: () => cli.store.credentials.addCredentialSecret({ clientId, secretHash: 'h2', retireOthersAt: Date.now() + 60_000 }, by) },
      'credentials.retirePreviousSecrets': { topic: 'access', run: () => cli.store.credentials.retirePreviousSecrets(clientId, by) },
      'credentials.revokeCredential': { topic: 'access', run: () => cli.store.credentials.revokeCredential(clientId, by) },
      'directory.createWorkspace': { topic: 'access', run: () => cli.store.directory.createWorkspace({ id: workspaceId, name: 'Heard' }, by) },
      'directory.addMember': { topic: 'access', run: () => cli.store.directory.addMember(workspaceId, other, by) },
      'directory.removeMember': { topic: 'access', run: () => cli.store.directory.removeMember(workspaceId, other, by) },
      'directory.createTest': { topic: 'access', run: () => cli.store.directory.createTest({ id: testId, workspaceId, title: 'T', productType: 'SURVEY' }, by) },
      'directory.setTestPlan': {
        topic: 'access',
        run: () => cli.store.directory.setTestPlan(testId, { id: crypto.randomUUID(), shortTest: false, taskGroups: [], tasks: [] }, by),
      },
      'sessions.importSessions': { topic: 'sessions', run: () => cli.store.sessions.importSessions(testId, imported, by) },
      'sessions.importSessionStream': { topic: 'sessions', run: () => cli.store.sessions.importSessionStream(testId, [makeSessions(3)], by) },
      'transcripts.importTranscripts': {
        topic: 'sessions',
        run: () => cli.store.transcripts.importTranscripts(testId, [{ sessionId: imported[0]!.sessionId, vtt: 'WEBVTT\n' }], by),
      },
      'signingKeys.add': { topic: 'keys', run: () => rotateSigningKey(cli.store.signingKeys, cli.clock, by) },
      'revocations.revoke': { topic: 'access', run: () => cli.store.revocations.revoke(crypto.randomUUID(), Date.now() + 60_000, by) },
      'userAccounts.issueSetupLink': { topic: 'access', run: () => cli.store.userAccounts.issueSetupLink(`invited-${other}`, crypto.randomUUID(), Date.now() + 60_000, true, by) },
      'apps.revokeApp': {
        topic: 'access',
        run: async () => {
          const app = await cli.store.apps.createApp({ clientId: `heard-${clientId}`, name: 'Heard', clientType: 'public', origin: 'registered', redirectUris: ['http://127.0.0.1/cb'], scopes: ['studies:read'], secretHash: null }, by);
          return cli.store.apps.revokeApp(app.clientId, by);
        },
      },
      'apps.saveMetadataApp': {
        topic: 'access',
        run: async () => {
          const document = { clientId: `https://heard.example.com/${clientId}.json`, name: 'Heard', redirectUris: ['https://heard.example.com/cb'], scopes: ['studies:read'] };
          await cli.store.apps.saveMetadataApp(document);
          return cli.store.apps.saveMetadataApp({ ...document, scopes: [] });
        },
      },
      'apps.revokeGrant': { topic: 'access', run: () => cli.store.apps.revokeGrant(crypto.randomUUID(), by, 'test') },
      'apps.revokeUserApp': { topic: 'access', run: () => cli.store.apps.revokeUserApp(crypto.randomUUID(), `heard-${clientId}`, by) },
    };

    const methods = Object.entries(repositories).flatMap(([name, repository]) =>
      Object.getOwnPropertyNames(repository.prototype).filter((m) => m !== 'constructor').map((m) => `${name}.${m}`),
    );
    const unclassified = methods.filter((m) => !(m in mutations) && !readers.has(m) && !bookkeeping.has(m) && !helpers.has(m));
    expect(unclassified).toEqual([]);

    /** How many changes of `topic` a server process has heard (its operations listener's metrics). */
    const heard = async (server: ServerProcess, topic: string): Promise<number> => {
      const text = await (await fetch(server.metricsUrl!)).text();
      return Number(new RegExp(`^changes_heard_total\\{topic="${topic}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    };
    for (const [name, { topic, run }] of Object.entries(mutations)) {
      const before = await Promise.all([heard(a, topic), heard(b, topic)]);
      await run();
      const deadline = Date.now() + 5000;
      for (;;) {
        const now = await Promise.all([heard(a, topic), heard(b, topic)]);
        if (now[0] > before[0] && now[1] > before[1]) break;
        if (Date.now() > deadline) throw new Error(`${name}: not heard by both servers (${topic}: ${before} -> ${now})`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });

  it('both processes report ready with database and Redis', async () => {
    for (const server of [a, b]) {
      const res = await fetch(`${server.url}/readyz`);
      expect(await res.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
    }
  });

});
