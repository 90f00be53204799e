import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerApp } from '../../src/operations/apps.js';
import { AdminSession, signedInAdmin, startAdminTestApp } from '../helpers/admin-app.js';

const app = await startAdminTestApp();
const by = { actor: 'test' };

type Session = AdminSession & { email: string; id: string };
let operator: Session;
let support: Session;
let accountAdmin: Session;
let mine: string; // the account admin's workspace
let theirs: string; // another workspace
let myTest: string;
let theirTest: string;

const json = async <T = Record<string, unknown>>(res: Response): Promise<T> => (await res.json()) as T;

beforeAll(async () => {
  [operator, support, accountAdmin] = await Promise.all([signedInAdmin(app, 'operator'), signedInAdmin(app, 'support'), signedInAdmin(app, 'account-admin')]);
  const store = app.t.runtime.store;
  mine = randomUUID();
  theirs = randomUUID();
  myTest = randomUUID();
  theirTest = randomUUID();
  await store.directory.createWorkspace({ id: mine, name: 'Mine' }, by);
  await store.directory.createWorkspace({ id: theirs, name: 'Theirs' }, by);
  await store.directory.createTest({ id: myTest, workspaceId: mine, title: 'My test', productType: 'SURVEY' }, by);
  await store.directory.createTest({ id: theirTest, workspaceId: theirs, title: 'Their test', productType: 'SURVEY' }, by);
  await store.admins.assignWorkspace(accountAdmin.id, mine, by);
});

describe('support: API users and credentials', () => {
  it('registers a user, issues a credential that mints a token, rotates, retires, revokes; every step audited with the admin', async () => {
    const email = `user-${randomUUID()}@example.com`;
    const created = await support.request('POST', '/admin/api/users', { email });
    expect(created.status).toBe(201);
    expect(await json(created)).toMatchObject({ email, status: 'active' });

    const issued = await support.request('POST', '/admin/api/credentials', { email });
    expect(issued.status).toBe(201);
    const credential = await json<{ clientId: string; clientSecret: string; tokenUrl: string; authorizationServerId: string }>(issued);
    expect(credential.authorizationServerId).toBe(app.t.runtime.servers.custom.id);
    const token = await fetch(`${app.t.url}/oauth2/${credential.authorizationServerId}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.clientId, client_secret: credential.clientSecret }),
    });
    expect(token.status).toBe(200);

    expect((await support.request('POST', '/admin/api/credentials', { email })).status).toBe(409);
    const listed = await json<{ clientId: string }[]>(await support.request('GET', `/admin/api/credentials?email=${encodeURIComponent(email)}`));
    expect(listed.map((c) => c.clientId)).toEqual([credential.clientId]);
    expect(JSON.stringify(listed)).not.toContain(credential.clientSecret);

    const rotated = await support.request('POST', `/admin/api/credentials/${credential.clientId}/rotate`, { retirePreviousNow: false });
    expect(rotated.status).toBe(200);
    expect(await json(rotated)).toMatchObject({ clientId: credential.clientId, email });
    const retired = await support.request('POST', `/admin/api/credentials/${credential.clientId}/retire-previous`);
    expect(await json(retired)).toMatchObject({ retired: 1, activeSecrets: 1 });
    const revoked = await support.request('POST', `/admin/api/credentials/${credential.clientId}/revoke`);
    expect(await json(revoked)).toMatchObject({ status: 'revoked', alreadyRevoked: false });
    const again = await fetch(`${app.t.url}/oauth2/${credential.authorizationServerId}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.clientId, client_secret: credential.clientSecret }),
    });
    expect(again.status).toBe(401);

    const disabled = await support.request('POST', `/admin/api/users/${encodeURIComponent(email)}/disable`);
    expect(await json(disabled)).toMatchObject({ status: 'disabled' });
    expect(await json(await support.request('POST', `/admin/api/users/${encodeURIComponent(email)}/enable`))).toMatchObject({ status: 'active' });

    const audit = await json<{ actor: string; action: string }[]>(
      await operator.request('GET', `/admin/api/audit?actor=${encodeURIComponent(`admin:${support.email}`)}&action=credential`),
    );
    expect(audit.map((e) => e.action)).toEqual(['credential.issue', 'credential.rotate', 'credential.retire_previous', 'credential.revoke']);
  });

  it("lists the apps an API user approved and has not revoked, revokes one for the user; an unknown user is 404", async () => {
    const email = `approver-${randomUUID()}@example.com`;
    expect((await support.request('POST', '/admin/api/users', { email })).status).toBe(201);
    const approvals = () => support.request('GET', `/admin/api/users/${encodeURIComponent(email)}/approvals`);
    expect(await json(await approvals())).toEqual([]);
    const store = app.t.runtime.store;
    const { app: partner } = await registerApp(app.t.runtime, { name: 'Partner', redirectUris: ['https://partner.example/cb'], scopes: ['sessions:read'], clientType: 'public' }, by);
    const user = (await store.credentials.findUserByEmail(email))!;
    const codeHash = randomUUID();
    await store.apps.createCode({ codeHash, clientId: partner.clientId, userId: user.id, redirectUri: 'https://partner.example/cb', codeChallenge: 'c', scopes: ['sessions:read'], resource: null, expiresAt: Date.now() + 60_000 });
    await store.apps.exchangeCode(codeHash, () => null, { grantId: randomUUID(), refreshHash: randomUUID(), refreshExpiresAt: Date.now() + 60_000 });
    expect(await json(await approvals())).toEqual([{ clientId: partner.clientId, name: 'Partner', scopes: ['sessions:read'], approvedAt: expect.any(String), lastUsedAt: expect.any(String) }]);
    const revoke = () => support.request('POST', `/admin/api/users/${encodeURIComponent(email)}/approvals/${encodeURIComponent(partner.clientId)}/revoke`);
    const revoked = await revoke();
    expect(revoked.status).toBe(200);
    expect(await json(revoked)).toEqual({ email, clientId: partner.clientId, revokedGrants: 1 });
    expect(await json(await approvals())).toEqual([]);
    const again = await revoke();
    expect(again.status).toBe(404);
    expect((await json<{ detail: string }>(again)).detail).toBe(`${email} has no approval of app ${partner.clientId} to revoke (never approved, or already revoked)`);
    const unknown = await support.request('GET', '/admin/api/users/nobody-at-all%40example.com/approvals');
    expect(unknown.status).toBe(404);
    expect((await support.request('POST', `/admin/api/users/nobody-at-all%40example.com/approvals/${encodeURIComponent(partner.clientId)}/revoke`)).status).toBe(404);
  });

  it('answers bad input with a 400 naming the field, an unknown client with 404', async () => {
    const bad = await support.request('POST', '/admin/api/users', { email: 'not an email' });
    expect(bad.status).toBe(400);
    expect((await json<{ detail: string }>(bad)).detail).toMatch(/^email must be an email address/);
    const unknown = await support.request('POST', `/admin/api/credentials/0oa${'Q'.repeat(17)}/revoke`);
    expect(unknown.status).toBe(404);
    expect((await support.request('POST', `/admin/api/credentials/0oa${'Q'.repeat(17)}/rotate`)).status).toBe(404);
    const malformed = await support.request('POST', '/admin/api/credentials/nope/revoke');
    expect(malformed.status).toBe(400);
    const extra = await support.request('POST', '/admin/api/users', { email: 'a@example.com', role: 'x' });
    expect(extra.status).toBe(400);
    expect((await json<{ detail: string }>(extra)).detail).toBe('body has a field this route does not take: role');
    const missing = await support.request('POST', '/admin/api/users', {});
    expect((await json<{ detail: string }>(missing)).detail).toBe('body needs email');
    const limit = await operator.request('GET', '/admin/api/audit?limit=0');
    expect((await json<{ detail: string }>(limit)).detail).toBe('querystring.limit must be >= 1');
  });
});

describe('account admin: members and tests of their workspaces only', () => {
  it('sees only their workspaces, adds and removes members, creates tests, sets plans, pages sessions', async () => {
    const list = await json<{ id: string }[]>(await accountAdmin.request('GET', '/admin/api/workspaces'));
    expect(list.map((w) => w.id)).toEqual([mine]);
    const added = await accountAdmin.request('POST', `/admin/api/workspaces/${mine}/members`, { email: 'member@example.com' });
    expect(added.status).toBe(201);
    expect(await json(added)).toMatchObject({ workspaceId: mine, email: 'member@example.com', userExists: false });
    expect((await json<unknown[]>(await accountAdmin.request('GET', `/admin/api/workspaces/${mine}/members`))).length).toBe(1);
    expect((await accountAdmin.request('DELETE', `/admin/api/workspaces/${mine}/members/member%40example.com`)).status).toBe(200);

    const test = await accountAdmin.request('POST', `/admin/api/workspaces/${mine}/tests`, { title: 'New test', productType: 'THINK_OUT_LOUD' });
    expect(test.status).toBe(201);
    const { id } = await json<{ id: string }>(test);
    const plan = await accountAdmin.request('PUT', `/admin/api/tests/${id}/plan`, { tasks: [{ text: 'Say hello', taskType: 'blank' }] });
    expect(plan.status).toBe(200);
    const badPlan = await accountAdmin.request('PUT', `/admin/api/tests/${id}/plan`, { tasks: [{ text: 'x' }] });
    expect(badPlan.status).toBe(400);
    expect((await json<{ errors: string[] }>(badPlan)).errors.length).toBeGreaterThan(0);
    const tests = await json<{ id: string }[]>(await accountAdmin.request('GET', `/admin/api/workspaces/${mine}/tests`));
    expect(tests.map((t) => t.id).sort()).toEqual([myTest, id].sort());

    const now = Date.now();
    await app.t.runtime.store.sessions.importSessions(
      myTest,
      [1, 2, 3].map((n) => ({ sessionId: randomUUID(), audienceId: null, status: n === 2 ? 'ABANDONED' : 'COMPLETE', startTime: now - n * 1000, finishTime: null })),
      by,
    );
    const page = await json<{ sessions: { status: string }[]; totalCount: number }>(
      await accountAdmin.request('GET', `/admin/api/tests/${myTest}/sessions?status=COMPLETE&limit=1`),
    );
    expect(page.totalCount).toBe(2);
    expect(page.sessions).toHaveLength(1);
    expect((await json<{ totalCount: number }>(await accountAdmin.request('GET', `/admin/api/tests/${myTest}/sessions`))).totalCount).toBe(3);
    expect(await json(await accountAdmin.request('GET', `/admin/api/tests/${myTest}`))).toMatchObject({
      id: myTest,
      workspaceId: mine,
      sessionCount: 3,
      sessionsByStatus: { COMPLETE: 2, ABANDONED: 1 },
    });
  });

  it('another workspace and its tests answer 404, exactly as unknown ones do', async () => {
    const unknownWorkspace = randomUUID();
    const unknownTest = randomUUID();
    const pairs: [string, string, string, unknown?][] = [
      ['GET', `/admin/api/workspaces/${theirs}/members`, `/admin/api/workspaces/${unknownWorkspace}/members`],
      ['POST', `/admin/api/workspaces/${theirs}/members`, `/admin/api/workspaces/${unknownWorkspace}/members`, { email: 'x@example.com' }],
      ['DELETE', `/admin/api/workspaces/${theirs}/members/x%40example.com`, `/admin/api/workspaces/${unknownWorkspace}/members/x%40example.com`],
      ['GET', `/admin/api/workspaces/${theirs}/tests`, `/admin/api/workspaces/${unknownWorkspace}/tests`],
      ['POST', `/admin/api/workspaces/${theirs}/tests`, `/admin/api/workspaces/${unknownWorkspace}/tests`, { title: 'Sneaky' }],
      ['GET', `/admin/api/tests/${theirTest}`, `/admin/api/tests/${unknownTest}`],
      ['GET', `/admin/api/tests/${theirTest}/sessions`, `/admin/api/tests/${unknownTest}/sessions`],
      ['PUT', `/admin/api/tests/${theirTest}/plan`, `/admin/api/tests/${unknownTest}/plan`, { tasks: [] }],
    ];
    for (const [method, foreign, unknown, body] of pairs) {
      const a = await accountAdmin.request(method, foreign, body);
      const b = await accountAdmin.request(method, unknown, body);
      expect([method, foreign, a.status]).toEqual([method, foreign, 404]);
      const detail = (await json<{ detail: string }>(a)).detail.replace(theirs, 'ID').replace(theirTest, 'ID');
      expect(detail).toBe((await json<{ detail: string }>(b)).detail.replace(unknownWorkspace, 'ID').replace(unknownTest, 'ID'));
    }
    expect(await app.t.runtime.store.directory.listMembers(theirs)).toEqual([]);
  });
});

describe('operator', () => {
  it('creates workspaces, lists and rotates keys, reads the audit log with filters, manages admins', async () => {
    const ws = await operator.request('POST', '/admin/api/workspaces', { name: 'Created by API' });
    expect(ws.status).toBe(201);
    const { id: workspaceId } = await json<{ id: string }>(ws);
    expect((await json<{ id: string }[]>(await operator.request('GET', '/admin/api/workspaces'))).map((w) => w.id)).toContain(workspaceId);

    const before = await json<{ kid: string; state: string }[]>(await operator.request('GET', '/admin/api/keys'));
    const rotated = await json<{ kid: string; previous: { kid: string; state: string } }>(await operator.request('POST', '/admin/api/keys/rotate'));
    expect(rotated.previous.kid).toBe(before.find((k) => k.state === 'active')!.kid);
    expect(JSON.stringify(await operator.request('GET', '/admin/api/keys').then((r) => r.text()))).not.toContain('PRIVATE');

    const created = await operator.request('POST', '/admin/api/admins', { email: `new-${randomUUID()}@example.com`, role: 'account-admin' });
    expect(created.status).toBe(201);
    const newAdmin = await json<{ id: string; setupLink: string; passwordSet: boolean }>(created);
    expect(newAdmin.passwordSet).toBe(false);
    expect(newAdmin.setupLink).toMatch(/\/setup#token=/);
    const assigned = await operator.request('PUT', `/admin/api/admins/${newAdmin.id}/workspaces/${workspaceId}`);
    expect(await json(assigned)).toMatchObject({ workspaces: [workspaceId] });
    expect((await operator.request('PUT', `/admin/api/admins/${newAdmin.id}/workspaces/${workspaceId}`)).status).toBe(409);
    expect(await json(await operator.request('DELETE', `/admin/api/admins/${newAdmin.id}/workspaces/${workspaceId}`))).toMatchObject({ workspaces: [] });
    const renewed = await json<{ setupLink: string }>(await operator.request('POST', `/admin/api/admins/${newAdmin.id}/setup-link`));
    expect(renewed.setupLink).not.toBe(newAdmin.setupLink);
    expect((await json<{ email: string }[]>(await operator.request('GET', '/admin/api/admins'))).length).toBeGreaterThanOrEqual(4);

    const events = await json<{ actor: string; action: string; subject: string }[]>(
      await operator.request('GET', `/admin/api/audit?action=workspace.create&subject=${workspaceId}`),
    );
    expect(events).toEqual([expect.objectContaining({ actor: `admin:${operator.email}`, action: 'workspace.create', subject: workspaceId })]);
    const since = await json<unknown[]>(await operator.request('GET', `/admin/api/audit?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`));
    expect(since).toEqual([]);
    expect((await operator.request('GET', '/admin/api/audit?action=nonsense')).status).toBe(400);
    expect((await operator.request('GET', '/admin/api/audit?since=yesterday')).status).toBe(400);
  });
});

describe('role matrix: each role is refused what it may not do', () => {
  const workspaceBody = { name: 'Not allowed' };
  // A session of the account admin's test (without a video: a clip of it is refused, after the role check).
  const session = randomUUID();
  beforeAll(async () => {
    await app.t.runtime.store.sessions.importSessions(myTest, [{ sessionId: session, audienceId: null, status: 'COMPLETE', startTime: Date.now(), finishTime: null }], by);
  });
  // [method, path, body, roles allowed]; `mine`/`theirs`/tests are filled in at run time.
  const routes = (): [string, string, unknown, string[]][] => [
    ['GET', '/admin/api/users', undefined, ['operator', 'support']],
    ['POST', '/admin/api/users', { email: `m-${randomUUID()}@example.com` }, ['operator', 'support']],
    ['POST', '/admin/api/users/nobody%40example.com/disable', undefined, ['operator', 'support']],
    ['POST', '/admin/api/users/nobody%40example.com/enable', undefined, ['operator', 'support']],
    ['GET', '/admin/api/users/nobody%40example.com/approvals', undefined, ['operator', 'support']],
    ['POST', '/admin/api/users/nobody%40example.com/approvals/0oaZZZZ/revoke', undefined, ['operator', 'support']],
    ['GET', '/admin/api/credentials', undefined, ['operator', 'support']],
    ['POST', '/admin/api/credentials', { email: 'nobody@example.com' }, ['operator', 'support']],
    ['POST', `/admin/api/credentials/0oa${'Z'.repeat(17)}/rotate`, undefined, ['operator', 'support']],
    ['POST', `/admin/api/credentials/0oa${'Z'.repeat(17)}/retire-previous`, undefined, ['operator', 'support']],
    ['POST', `/admin/api/credentials/0oa${'Z'.repeat(17)}/revoke`, undefined, ['operator', 'support']],
    ['GET', '/admin/api/public-endpoints', undefined, ['operator', 'support']],
    ['GET', '/admin/api/webhooks', undefined, ['operator', 'support']],
    ['GET', `/admin/api/webhooks/${randomUUID()}/deliveries`, undefined, ['operator', 'support']],
    ['POST', `/admin/api/webhooks/${randomUUID()}/disable`, undefined, ['operator', 'support']],
    ['DELETE', `/admin/api/webhooks/${randomUUID()}`, undefined, ['operator', 'support']],
    ['GET', '/admin/api/workspaces', undefined, ['operator', 'account-admin']],
    ['POST', '/admin/api/workspaces', workspaceBody, ['operator']],
    ['GET', `/admin/api/workspaces/${mine}/members`, undefined, ['operator', 'account-admin']],
    ['POST', `/admin/api/workspaces/${mine}/members`, { email: `m-${randomUUID()}@example.com` }, ['operator', 'account-admin']],
    ['GET', `/admin/api/workspaces/${mine}/tests`, undefined, ['operator', 'account-admin']],
    ['GET', `/admin/api/tests/${myTest}`, undefined, ['operator', 'account-admin']],
    ['GET', `/admin/api/tests/${myTest}/sessions`, undefined, ['operator', 'account-admin']],
    ['POST', `/admin/api/tests/${myTest}/sessions/import`, undefined, ['operator', 'account-admin']],
    ['PUT', `/admin/api/tests/${myTest}/plan`, { tasks: [] }, ['operator', 'account-admin']],
    ['GET', `/admin/api/tests/${myTest}/sessions/${session}`, undefined, ['operator', 'account-admin']],
    ['GET', `/admin/api/tests/${myTest}/sessions/${session}/transcript`, undefined, ['operator', 'account-admin']],
    ['GET', `/admin/api/tests/${myTest}/sessions/${session}/video-link`, undefined, ['operator', 'account-admin']],
    ['GET', `/admin/api/sessions/${session}/clips`, undefined, ['operator', 'account-admin']],
    ['POST', `/admin/api/sessions/${session}/clips`, { startMs: 0, endMs: 1000, name: 'Clip' }, ['operator', 'account-admin']],
    ['GET', `/admin/api/tests/${myTest}/clips`, undefined, ['operator', 'account-admin']],
    ['GET', `/admin/api/tests/${myTest}/reels`, undefined, ['operator', 'account-admin']],
    ['POST', `/admin/api/tests/${myTest}/reels`, { name: 'Reel', clipIds: [randomUUID()] }, ['operator', 'account-admin']],
    ['POST', `/admin/api/clips/${randomUUID()}/retry`, undefined, ['operator', 'account-admin']],
    ['POST', `/admin/api/reels/${randomUUID()}/retry`, undefined, ['operator', 'account-admin']],
    ['GET', '/admin/api/jobs', undefined, ['operator']],
    ['GET', '/admin/api/keys', undefined, ['operator']],
    ['POST', '/admin/api/keys/rotate', undefined, ['operator']],
    ['GET', '/admin/api/audit', undefined, ['operator']],
    ['GET', '/admin/api/admins', undefined, ['operator']],
    ['POST', '/admin/api/admins', { email: `a-${randomUUID()}@example.com`, role: 'support' }, ['operator']],
    ['PUT', `/admin/api/admins/${accountAdmin.id}/workspaces/${theirs}`, undefined, ['operator']],
  ];

  it.each(['operator', 'support', 'account-admin'])('%s', async (role) => {
    const session = { operator, support, 'account-admin': accountAdmin }[role]!;
    for (const [method, path, body, allowed] of routes()) {
      const res = await session.request(method, path, body);
      if (allowed.includes(role)) expect([method, path, res.status], await res.text()).not.toEqual([method, path, 403]);
      else expect([method, path, res.status]).toEqual([method, path, 403]);
      if (method === 'PUT' && allowed.includes(role)) await session.request('DELETE', path);
    }
  });

  it('nothing is served without a session', async () => {
    for (const [method, path, body] of routes()) {
      const res = await new AdminSession(app.adminUrl).request(method, path, body);
      expect([method, path, res.status]).toEqual([method, path, 401]);
    }
  });

  it('no change goes through with the cookie but without the CSRF token', async () => {
    for (const [method, path, body] of routes()) {
      if (method === 'GET') continue;
      const res = await operator.request(method, path, body, { csrf: false });
      expect([method, path, res.status]).toEqual([method, path, 403]);
    }
  });
});

describe('session imports by upload', () => {
  const upload = (session: AdminSession, testId: string, name: string, text: string, query = '') => {
    const form = new FormData();
    form.append('file', new Blob([text]), name);
    const headers: Record<string, string> = { cookie: session.cookie!, 'x-csrf-token': session.csrfToken! };
    return fetch(`${app.adminUrl}/admin/api/tests/${testId}/sessions/import${query}`, { method: 'POST', headers, body: form });
  };
  const line = (id: string, status = 'COMPLETE') =>
    JSON.stringify({ sessionId: id, audienceId: null, status, startTime: '2026-11-01T10:00:00Z', finishTime: '2026-11-01T10:20:00Z' });

  it('imports an NDJSON file into a test of the account admin, idempotently, audited with the admin', async () => {
    const ids = [randomUUID(), randomUUID()];
    const first = await upload(accountAdmin, myTest, 'sessions.ndjson', `${ids.map((id) => line(id)).join('\n')}\n`);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ testId: myTest, inserted: 2, updated: 0, unchanged: 0 });
    const again = await upload(accountAdmin, myTest, 'sessions.txt', `${line(ids[0]!)}\n${line(ids[1]!, 'ABANDONED')}\n`, '?format=ndjson');
    expect(await again.json()).toEqual({ testId: myTest, inserted: 0, updated: 1, unchanged: 1 });
    const events = await app.t.runtime.store.audit.list({ action: 'sessions.import', subject: myTest });
    expect(events.at(-1)!.actor).toBe(`admin:${accountAdmin.email}`);
  });

  it('refuses a file with bad lines, listing each as the CLI does, and imports nothing', async () => {
    const before = (await app.t.runtime.store.directory.getTest(myTest))!.sessionCount;
    const res = await upload(accountAdmin, myTest, 'bad.ndjson', `${line(randomUUID())}\n{"sessionId":"nope"}\n${line(randomUUID())}\nnot json\n`);
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { detail: string; errors: string[] };
    expect(problem.detail).toBe('bad.ndjson: 2 bad lines; nothing was imported');
    expect(problem.errors).toHaveLength(2);
    expect(problem.errors[0]).toMatch(/^line 2: /);
    expect(problem.errors[1]).toMatch(/^line 4: /);
    expect((await app.t.runtime.store.directory.getTest(myTest))!.sessionCount).toBe(before);
  });

  it('refuses a line nesting 5,000 levels as a bad line, by its number, never a 500', async () => {
    const deep = `{"sessionId":"${randomUUID()}","status":"COMPLETE","startTime":"2026-11-01T10:00:00Z","details":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const res = await upload(accountAdmin, myTest, 'deep.ndjson', `${line(randomUUID())}\n${deep}\n`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: string[] }).errors).toEqual(['line 2: the line nests arrays and objects more than 32 levels deep']);
  });

  it('refuses an unknown format, a body that is not multipart, and another workspace\'s test (404)', async () => {
    expect((await upload(accountAdmin, myTest, 'sessions.bin', line(randomUUID()))).status).toBe(400);
    expect((await accountAdmin.request('POST', `/admin/api/tests/${myTest}/sessions/import`, { sessions: [] })).status).toBe(415);
    const foreign = await upload(accountAdmin, theirTest, 'sessions.ndjson', `${line(randomUUID())}\n`);
    expect(foreign.status).toBe(404);
    expect((await app.t.runtime.store.directory.getTest(theirTest))!.sessionCount).toBe(0);
    expect((await upload(support, myTest, 'sessions.ndjson', `${line(randomUUID())}\n`)).status).toBe(403);
  });
});
