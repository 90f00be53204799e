/**
 * The repositories' contract: the suite runs unchanged on every database, so SQLite and
 * PostgreSQL behave identically. `makeStore` must return an unmigrated store over a fresh,
 * empty database that reads time from `clock` and announces through `announce`; the suite
 * migrates and closes it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import type { Change } from '../changes/change-feed.js';
import { StoreConflictError } from './conflicts.js';
import { rejectionOf } from '../../test/helpers/rejection.js';
import type { Announce } from './database.js';
import type { Store } from './open-store.js';
import type { SessionInput } from './store.js';

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const admin = { actor: 'cli:admin' };
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Deterministic lowercase UUIDs: uuid(1), uuid(2), ... */
const uuid = (n: number, prefix = '00000000'): string =>
  `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const conflict = (promise: Promise<unknown>) => rejectionOf(promise, StoreConflictError);

const session = (n: number, startTime: number, extra: Partial<SessionInput> = {}): SessionInput => ({
  sessionId: uuid(n, '5e55105e'),
  audienceId: uuid(n, 'a0d1e0ce'),
  status: 'COMPLETE',
  startTime,
  finishTime: startTime + MINUTE,
  ...extra,
});

export function describeStoreContract(name: string, makeStore: (clock: ManualClock, announce: Announce) => Promise<Store>): void {
  describe(`Store contract: ${name}`, () => {
    let clock: ManualClock;
    let store: Store;
    let firstMigration: number[];
    let announced: Change[];

    beforeEach(async () => {
      clock = new ManualClock(T0);
      announced = [];
      store = await makeStore(clock, async (change) => void announced.push(change));
      firstMigration = (await store.database.migrate()).applied;
    });
    afterEach(async () => {
      await store.database.close();
    });

    const actions = async (): Promise<string[]> => (await store.audit.list()).map((e) => e.action);

    /** A workspace with one test; `member` (if given) may see it. */
    async function workspaceWithTest(n: number, member?: string): Promise<{ workspaceId: string; testId: string }> {
      const workspaceId = uuid(n, 'ccccccc0');
      const testId = uuid(n, 'eeeeeee0');
      await store.directory.createWorkspace({ id: workspaceId, name: `Workspace ${n}` }, admin);
      await store.directory.createTest({ id: testId, workspaceId, title: `Test ${n}`, productType: 'survey' }, admin);
      if (member) await store.directory.addMember(workspaceId, member, admin);
      return { workspaceId, testId };
    }

    async function userWithCredential(email: string, clientId: string, secretHash = `hash-${clientId}-1`) {
      await store.credentials.createUser(email, admin);
      return store.credentials.createCredential({ clientId, email, secretHash }, admin);
    }

    describe('lifecycle', () => {
      it('migrates once; a second migrate applies nothing and keeps data', async () => {
        expect(firstMigration.length).toBeGreaterThan(0);
        expect(firstMigration).toEqual([...firstMigration].sort((a, b) => a - b));
        await store.credentials.createUser('kept@example.com', admin);
        expect(await store.database.migrate()).toEqual({ applied: [] });
        expect(await store.credentials.findUserByEmail('kept@example.com')).not.toBeNull();
      });

      it('pings and reports its dialect', async () => {
        await expect(store.database.ping()).resolves.toBeUndefined();
        expect(['sqlite', 'postgres']).toContain(store.database.dialect);
      });

      it('getOrSetSetting: the first value wins', async () => {
        expect(await store.settings.getOrSet('auth_server_id', 'ausFIRST')).toBe('ausFIRST');
        expect(await store.settings.getOrSet('auth_server_id', 'ausSECOND')).toBe('ausFIRST');
        expect(await store.settings.getOrSet('other', 'x')).toBe('x');
      });
    });

    describe('users', () => {
      it('creates a user, trimmed, active, at the clock time', async () => {
        const user = await store.credentials.createUser('  Ada@Example.com ', admin);
        expect(user).toEqual({ id: expect.stringMatching(UUID_PATTERN), email: 'Ada@Example.com', status: 'active', createdAt: T0 });
        expect(await store.credentials.findUserByEmail('ada@example.com')).toEqual(user);
        expect(await store.credentials.findUserByEmail(' ADA@EXAMPLE.COM')).toEqual(user);
        expect(await store.credentials.findUserByEmail('nobody@example.com')).toBeNull();
      });

      it('refuses a duplicate email in any case and writes nothing', async () => {
        await store.credentials.createUser('ada@example.com', admin);
        expect((await conflict(store.credentials.createUser('ADA@example.COM', admin))).code).toBe('duplicate');
        expect(await store.credentials.listUsers()).toHaveLength(1);
        expect(await actions()).toEqual(['user.create']);
      });

      it('lists users by email, case-insensitively', async () => {
        for (const email of ['bob@example.com', 'Alice@example.com', 'carol@example.com']) await store.credentials.createUser(email, admin);
        expect((await store.credentials.listUsers()).map((u) => u.email)).toEqual(['Alice@example.com', 'bob@example.com', 'carol@example.com']);
      });

      it('disables and re-enables a user by email in any case', async () => {
        const user = await store.credentials.createUser('ada@example.com', admin);
        expect(await store.credentials.setUserStatus('ADA@example.com', 'disabled', admin)).toEqual({ ...user, status: 'disabled' });
        expect((await store.credentials.findUserByEmail('ada@example.com'))?.status).toBe('disabled');
        expect((await store.credentials.setUserStatus('ada@example.com', 'active', admin)).status).toBe('active');
        expect(await actions()).toEqual(['user.create', 'user.disable', 'user.enable']);
        expect((await conflict(store.credentials.setUserStatus('nobody@example.com', 'disabled', admin))).code).toBe('not_found');
      });
    });

    describe('credentials', () => {
      it('creates a credential with one secret for an existing user', async () => {
        const user = await store.credentials.createUser('ada@example.com', admin);
        clock.advance(MINUTE);
        const credential = await store.credentials.createCredential({ clientId: '0oaA', email: 'ADA@example.com', secretHash: 'h1' }, admin);
        expect(credential).toEqual({
          clientId: '0oaA',
          userId: user.id,
          email: 'ada@example.com',
          createdAt: T0 + MINUTE,
          lastUsedAt: null,
          revokedAt: null,
          activeSecrets: 1,
        });
        expect(await store.credentials.listCredentials()).toEqual([credential]);
      });

      it('requires an existing user', async () => {
        const error = await conflict(store.credentials.createCredential({ clientId: '0oaA', email: 'x@example.com', secretHash: 'h' }, admin));
        expect(error.code).toBe('not_found');
        expect(await store.credentials.listCredentials()).toEqual([]);
        expect(await store.audit.list()).toEqual([]);
      });

      it('allows one active credential per user, and a new one after revoking', async () => {
        await userWithCredential('ada@example.com', '0oaA');
        const error = await conflict(store.credentials.createCredential({ clientId: '0oaB', email: 'Ada@example.com', secretHash: 'h' }, admin));
        expect(error.code).toBe('duplicate');
        expect(await store.credentials.findClientForAuth('0oaB')).toBeNull();
        await store.credentials.revokeCredential('0oaA', admin);
        expect((await store.credentials.createCredential({ clientId: '0oaB', email: 'ada@example.com', secretHash: 'h' }, admin)).clientId).toBe('0oaB');
        expect((await store.credentials.listCredentials()).map((c) => c.clientId)).toEqual(['0oaA', '0oaB']);
      });

      it('rotation keeps the previous secret until retireOthersAt', async () => {
        await userWithCredential('ada@example.com', '0oaA', 'h1');
        clock.advance(HOUR);
        const rotated = await store.credentials.addCredentialSecret({ clientId: '0oaA', secretHash: 'h2', retireOthersAt: T0 + 2 * HOUR }, admin);
        expect(rotated.activeSecrets).toBe(2);
        const auth = await store.credentials.findClientForAuth('0oaA');
        expect(auth?.secrets.sort((a, b) => a.hash.localeCompare(b.hash))).toEqual([
          { hash: 'h1', createdAt: T0, expiresAt: T0 + 2 * HOUR },
          { hash: 'h2', createdAt: T0 + HOUR, expiresAt: null },
        ]);
        clock.set(T0 + 2 * HOUR);
        expect((await store.credentials.listCredentials())[0]?.activeSecrets).toBe(1);
      });

      it('a second rotation while the previous secret is in grace is refused, naming both, and changes nothing', async () => {
        await userWithCredential('ada@example.com', '0oaA', 'h1');
        clock.advance(MINUTE);
        await store.credentials.addCredentialSecret({ clientId: '0oaA', secretHash: 'h2', retireOthersAt: T0 + HOUR }, admin);
        clock.advance(MINUTE);
        const before = await store.credentials.findClientForAuth('0oaA');
        const refused = await conflict(store.credentials.addCredentialSecret({ clientId: '0oaA', secretHash: 'h3', retireOthersAt: T0 + 2 * HOUR }, admin));
        expect(refused.code).toBe('secret_in_grace');
        expect(refused.message).toContain('issued 2026-01-01T00:01:00.000Z');
        expect(refused.message).toContain('promised until 2026-01-01T01:00:00.000Z');
        expect(refused.message).toContain('--retire-previous-now');
        expect(await store.credentials.findClientForAuth('0oaA')).toEqual(before);
      });

      it('a rotation that retires the others now ends every previous secret, even one in grace', async () => {
        // Hashes chosen to sort opposite to creation, so hash order cannot stand in for age.
        for (const [first, second, third] of [['ha', 'hb', 'hc'], ['hz', 'hy', 'hx']]) {
          const clientId = `0oa-${first}`;
          await userWithCredential(`${first}@example.com`, clientId, first);
          await store.credentials.addCredentialSecret({ clientId, secretHash: second!, retireOthersAt: T0 + HOUR }, admin);
          const c = await store.credentials.addCredentialSecret({ clientId, secretHash: third!, retireOthersAt: T0 }, admin);
          expect(c.activeSecrets).toBe(1);
          const secrets = Object.fromEntries((await store.credentials.findClientForAuth(clientId))!.secrets.map((s) => [s.hash, s.expiresAt]));
          expect(secrets).toEqual({ [first!]: T0, [second!]: T0, [third!]: null });
        }
      });

      it('once the grace period is over, rotating again keeps the new previous secret in grace', async () => {
        await userWithCredential('ada@example.com', '0oaA', 'h1');
        await store.credentials.addCredentialSecret({ clientId: '0oaA', secretHash: 'h2', retireOthersAt: T0 + HOUR }, admin);
        clock.set(T0 + HOUR);
        await store.credentials.addCredentialSecret({ clientId: '0oaA', secretHash: 'h3', retireOthersAt: T0 + 2 * HOUR }, admin);
        const secrets = Object.fromEntries((await store.credentials.findClientForAuth('0oaA'))!.secrets.map((s) => [s.hash, s.expiresAt]));
        expect(secrets).toEqual({ h1: T0 + HOUR, h2: T0 + 2 * HOUR, h3: null });
      });

      it('a rotation with retireOthersAt in the past retires the previous secret now', async () => {
        await userWithCredential('ada@example.com', '0oaA', 'h1');
        clock.advance(HOUR);
        const c = await store.credentials.addCredentialSecret({ clientId: '0oaA', secretHash: 'h2', retireOthersAt: T0 }, admin);
        expect(c.activeSecrets).toBe(1);
        const secrets = Object.fromEntries((await store.credentials.findClientForAuth('0oaA'))!.secrets.map((s) => [s.hash, s.expiresAt]));
        expect(secrets).toEqual({ h1: T0 + HOUR, h2: null });
      });

      it('refuses to rotate an unknown or revoked credential', async () => {
        const input = { clientId: '0oaA', secretHash: 'h2', retireOthersAt: T0 };
        expect((await conflict(store.credentials.addCredentialSecret(input, admin))).code).toBe('not_found');
        await userWithCredential('ada@example.com', '0oaA');
        await store.credentials.revokeCredential('0oaA', admin);
        expect((await conflict(store.credentials.addCredentialSecret(input, admin))).code).toBe('revoked');
        expect((await store.credentials.findClientForAuth('0oaA'))?.secrets).toHaveLength(1);
      });

      it('retirePreviousSecrets ends the grace period now and keeps the newest secret', async () => {
        await userWithCredential('ada@example.com', '0oaA', 'h1');
        clock.advance(MINUTE);
        await store.credentials.addCredentialSecret({ clientId: '0oaA', secretHash: 'h2', retireOthersAt: T0 + HOUR }, admin);
        clock.advance(MINUTE);
        const { credential, retired } = await store.credentials.retirePreviousSecrets('0oaA', admin);
        expect(retired).toBe(1);
        expect(credential).toMatchObject({ clientId: '0oaA', activeSecrets: 1, revokedAt: null });
        const secrets = Object.fromEntries((await store.credentials.findClientForAuth('0oaA'))!.secrets.map((s) => [s.hash, s.expiresAt]));
        expect(secrets).toEqual({ h1: T0 + 2 * MINUTE, h2: null });
        expect((await store.audit.list()).filter((e) => e.action === 'credential.retire_previous')).toEqual([
          { id: expect.any(Number), at: T0 + 2 * MINUTE, actor: admin.actor, action: 'credential.retire_previous', subject: '0oaA', details: { retired: 1 } },
        ]);
      });

      it('retirePreviousSecrets with nothing in grace changes and audits nothing', async () => {
        await userWithCredential('ada@example.com', '0oaA', 'h1');
        clock.advance(MINUTE);
        await store.credentials.addCredentialSecret({ clientId: '0oaA', secretHash: 'h2', retireOthersAt: T0 + 2 * MINUTE }, admin);
        clock.advance(HOUR);
        const before = await store.credentials.findClientForAuth('0oaA');
        const auditBefore = await store.audit.list();
        expect(await store.credentials.retirePreviousSecrets('0oaA', admin)).toEqual({ credential: (await store.credentials.listCredentials())[0], retired: 0 });
        expect(await store.credentials.findClientForAuth('0oaA')).toEqual(before);
        expect(await store.audit.list()).toEqual(auditBefore);
      });

      it('retirePreviousSecrets refuses an unknown or revoked credential', async () => {
        expect((await conflict(store.credentials.retirePreviousSecrets('0oaA', admin))).code).toBe('not_found');
        await userWithCredential('ada@example.com', '0oaA', 'h1');
        await store.credentials.addCredentialSecret({ clientId: '0oaA', secretHash: 'h2', retireOthersAt: T0 + HOUR }, admin);
        await store.credentials.revokeCredential('0oaA', admin);
        const before = await store.credentials.findClientForAuth('0oaA');
        expect((await conflict(store.credentials.retirePreviousSecrets('0oaA', admin))).code).toBe('revoked');
        expect(await store.credentials.findClientForAuth('0oaA')).toEqual(before);
        expect(await actions()).not.toContain('credential.retire_previous');
      });

      it('revokes once; revoking again changes nothing', async () => {
        await userWithCredential('ada@example.com', '0oaA');
        clock.advance(MINUTE);
        const revoked = await store.credentials.revokeCredential('0oaA', admin);
        expect(revoked.revokedAt).toBe(T0 + MINUTE);
        clock.advance(MINUTE);
        expect(await store.credentials.revokeCredential('0oaA', admin)).toEqual(revoked);
        expect(await store.credentials.listCredentials()).toEqual([revoked]);
        expect((await actions()).filter((a) => a === 'credential.revoke')).toHaveLength(1);
        expect((await conflict(store.credentials.revokeCredential('0oaNope', admin))).code).toBe('not_found');
      });

      it('findClientForAuth returns what client authentication needs', async () => {
        const user = await store.credentials.createUser('ada@example.com', admin);
        await store.credentials.createCredential({ clientId: '0oaA', email: 'ada@example.com', secretHash: 'h1' }, admin);
        expect(await store.credentials.findClientForAuth('0oaA')).toEqual({
          clientId: '0oaA',
          userId: user.id,
          userActive: true,
          revoked: false,
          lastUsedAt: null,
          secrets: [{ hash: 'h1', createdAt: T0, expiresAt: null }],
        });
        await store.credentials.setUserStatus('ada@example.com', 'disabled', admin);
        await store.credentials.revokeCredential('0oaA', admin);
        expect(await store.credentials.findClientForAuth('0oaA')).toMatchObject({ userActive: false, revoked: true });
        expect(await store.credentials.findClientForAuth('0oaUnknown')).toBeNull();
      });

      it('recordClientUse sets lastUsedAt and ignores unknown clients', async () => {
        await userWithCredential('ada@example.com', '0oaA');
        await store.credentials.recordClientUse('0oaA', T0 + 5 * MINUTE);
        await store.credentials.recordClientUse('0oaUnknown', T0);
        expect((await store.credentials.findClientForAuth('0oaA'))?.lastUsedAt).toBe(T0 + 5 * MINUTE);
        expect((await store.credentials.listCredentials())[0]?.lastUsedAt).toBe(T0 + 5 * MINUTE);
      });

      it('findPrincipal: only an unrevoked credential of an active user', async () => {
        const user = await store.credentials.createUser('Ada@example.com', admin);
        await store.credentials.createCredential({ clientId: '0oaA', email: 'ada@example.com', secretHash: 'h' }, admin);
        expect(await store.credentials.findPrincipal('0oaA')).toEqual({ clientId: '0oaA', userId: user.id, email: 'Ada@example.com' });
        expect(await store.credentials.findPrincipal('0oaUnknown')).toBeNull();
        await store.credentials.setUserStatus('ada@example.com', 'disabled', admin);
        expect(await store.credentials.findPrincipal('0oaA')).toBeNull();
        await store.credentials.setUserStatus('ada@example.com', 'active', admin);
        expect(await store.credentials.findPrincipal('0oaA')).not.toBeNull();
        await store.credentials.revokeCredential('0oaA', admin);
        expect(await store.credentials.findPrincipal('0oaA')).toBeNull();
      });
    });

    describe('workspaces and members', () => {
      it('creates, gets and lists workspaces in creation order', async () => {
        const b = await store.directory.createWorkspace({ id: uuid(2), name: 'B' }, admin);
        clock.advance(MINUTE);
        const a = await store.directory.createWorkspace({ id: uuid(1), name: 'A' }, admin);
        expect(b).toEqual({ id: uuid(2), name: 'B', createdAt: T0 });
        expect(await store.directory.getWorkspace(uuid(1))).toEqual(a);
        expect(await store.directory.getWorkspace(uuid(3))).toBeNull();
        expect(await store.directory.listWorkspaces()).toEqual([b, a]);
        expect((await conflict(store.directory.createWorkspace({ id: uuid(1), name: 'again' }, admin))).code).toBe('duplicate');
        expect(await store.directory.getWorkspace(uuid(1))).toEqual(a);
      });

      it('adds, lists, checks and removes members by email in any case', async () => {
        const ws = uuid(1);
        await store.directory.createWorkspace({ id: ws, name: 'W' }, admin);
        expect(await store.directory.addMember(ws, ' Bob@example.com ', admin)).toEqual({ workspaceId: ws, email: 'Bob@example.com', addedAt: T0 });
        await store.directory.addMember(ws, 'alice@example.com', admin);
        expect((await conflict(store.directory.addMember(ws, 'BOB@example.com', admin))).code).toBe('duplicate');
        expect((await store.directory.listMembers(ws)).map((m) => m.email)).toEqual(['alice@example.com', 'Bob@example.com']);
        expect(await store.directory.isMember(ws, 'bob@EXAMPLE.com')).toBe(true);
        await store.directory.removeMember(ws, 'BOB@example.com', admin);
        expect(await store.directory.isMember(ws, 'bob@example.com')).toBe(false);
        expect((await conflict(store.directory.removeMember(ws, 'bob@example.com', admin))).code).toBe('not_found');
        expect(await actions()).toEqual(['workspace.create', 'member.add', 'member.add', 'member.remove']);
      });

      it('refuses member operations on an unknown workspace', async () => {
        expect((await conflict(store.directory.addMember(uuid(9), 'a@example.com', admin))).code).toBe('not_found');
        expect((await conflict(store.directory.removeMember(uuid(9), 'a@example.com', admin))).code).toBe('not_found');
        expect((await conflict(store.directory.listMembers(uuid(9)))).code).toBe('not_found');
        expect(await store.directory.isMember(uuid(9), 'a@example.com')).toBe(false);
        expect(await store.audit.list()).toEqual([]);
      });

      it('lists the workspaces of a member, by email in any case', async () => {
        const w1 = await store.directory.createWorkspace({ id: uuid(1), name: 'One' }, admin);
        clock.advance(MINUTE);
        const w2 = await store.directory.createWorkspace({ id: uuid(2), name: 'Two' }, admin);
        await store.directory.createWorkspace({ id: uuid(3), name: 'Three' }, admin);
        await store.directory.addMember(w2.id, 'Ada@example.com', admin);
        await store.directory.addMember(w1.id, 'ada@example.com', admin);
        await store.directory.addMember(uuid(3), 'bob@example.com', admin);
        expect(await store.directory.listWorkspacesForMember('ADA@example.com')).toEqual([w1, w2]);
        expect(await store.directory.listWorkspacesForMember('nobody@example.com')).toEqual([]);
      });
    });

    describe('tests and visibility', () => {
      it('creates, gets and lists tests per workspace', async () => {
        const { workspaceId, testId } = await workspaceWithTest(1);
        await workspaceWithTest(2);
        const test = {
          id: testId,
          workspaceId,
          title: 'Test 1',
          productType: 'survey',
          type: 'STUDYV2',
          createdAt: T0,
          orderedAt: T0,
          orderedBy: null,
          plan: null,
          sessionCount: 0,
        };
        expect(await store.directory.getTest(testId)).toEqual(test);
        expect(await store.directory.getTest(uuid(99))).toBeNull();
        clock.advance(MINUTE);
        const second = await store.directory.createTest({ id: uuid(3), workspaceId, title: 'Later', productType: 'video' }, admin);
        expect(second).toEqual({ ...test, id: uuid(3), title: 'Later', productType: 'video', createdAt: T0 + MINUTE, orderedAt: T0 + MINUTE });
        expect(await store.directory.listTests(workspaceId)).toEqual([test, second]);
        expect((await conflict(store.directory.listTests(uuid(99)))).code).toBe('not_found');
      });

      it('keeps who ordered a test and when, and its plan; a plan can be replaced', async () => {
        const { workspaceId } = await workspaceWithTest(1);
        const plan = {
          id: 'plan-1',
          shortTest: true,
          taskGroups: [{ id: 'g', type: 'MAIN' }],
          tasks: [{ text: 'Pick one', taskType: 'multiple_choice', taskGroupId: 'g', choices: ['a', 'b'] }],
        };
        const created = await store.directory.createTest(
          { id: uuid(4), workspaceId, title: 'Planned', productType: 'SURVEY', orderedAt: T0 - HOUR, orderedBy: { email: 'r@example.com', name: 'R' }, plan },
          admin,
        );
        expect(await store.directory.getTest(uuid(4))).toEqual(created);
        expect(created).toMatchObject({ orderedAt: T0 - HOUR, orderedBy: { email: 'r@example.com', name: 'R' }, plan });
        const replaced = { ...plan, id: 'plan-2', tasks: [] };
        announced.length = 0;
        expect(await store.directory.setTestPlan(uuid(4), replaced, admin)).toEqual({ ...created, plan: replaced });
        expect((await store.directory.getTest(uuid(4)))!.plan).toEqual(replaced);
        expect(announced).toEqual([{ topic: 'access' }]);
        expect((await store.audit.list()).at(-1)).toMatchObject({ action: 'test.plan_set', subject: uuid(4), details: { planId: 'plan-2', tasks: 0 } });
        expect((await conflict(store.directory.setTestPlan(uuid(99), replaced, admin))).code).toBe('not_found');
      });

      it('refuses a duplicate test id, even in another workspace, and an unknown workspace', async () => {
        const { testId } = await workspaceWithTest(1);
        const other = await workspaceWithTest(2);
        const dup = await conflict(store.directory.createTest({ id: testId, workspaceId: other.workspaceId, title: 'x', productType: 'p' }, admin));
        expect(dup.code).toBe('duplicate');
        const missing = await conflict(store.directory.createTest({ id: uuid(7), workspaceId: uuid(99), title: 'x', productType: 'p' }, admin));
        expect(missing.code).toBe('not_found');
        expect((await store.directory.getTest(testId))?.workspaceId).toBe(uuid(1, 'ccccccc0'));
      });

      it('findVisibleTest: only through membership of the test’s own workspace', async () => {
        const a = await workspaceWithTest(1, 'ada@example.com');
        const b = await workspaceWithTest(2, 'bob@example.com');
        expect((await store.directory.findVisibleTest(a.testId, 'ADA@example.com'))?.id).toBe(a.testId);
        expect(await store.directory.findVisibleTest(b.testId, 'ada@example.com')).toBeNull();
        expect(await store.directory.findVisibleTest(a.testId, 'bob@example.com')).toBeNull();
        expect(await store.directory.findVisibleTest(uuid(99), 'ada@example.com')).toBeNull();

        await store.directory.addMember(b.workspaceId, 'Ada@Example.com', admin);
        expect(await store.directory.findVisibleTest(b.testId, 'ada@example.com')).toEqual(await store.directory.getTest(b.testId));
        await store.directory.removeMember(b.workspaceId, 'ada@example.com', admin);
        expect(await store.directory.findVisibleTest(b.testId, 'ada@example.com')).toBeNull();
        expect((await store.directory.findVisibleTest(a.testId, 'ada@example.com'))?.id).toBe(a.testId);
      });
    });

    describe('sessions', () => {
      it('imports, then counts re-imports as unchanged and changes as updated', async () => {
        const { testId } = await workspaceWithTest(1, 'ada@example.com');
        const rows = [session(1, T0), session(2, T0 + MINUTE), session(3, T0 + 2 * MINUTE, { audienceId: null, finishTime: null })];
        expect(await store.sessions.importSessions(testId, rows, admin)).toEqual({ inserted: 3, updated: 0, unchanged: 0 });
        const before = await store.sessions.listSessions(testId, 0, 10);
        expect(await store.sessions.importSessions(testId, rows, admin)).toEqual({ inserted: 0, updated: 0, unchanged: 3 });
        expect(await store.sessions.listSessions(testId, 0, 10)).toEqual(before);

        const changed = [
          session(1, T0, { status: 'ABANDONED' }),
          session(2, T0 + MINUTE, { audienceId: null }),
          session(3, T0 + 2 * MINUTE, { audienceId: null, finishTime: null }),
          session(4, T0 + 3 * MINUTE),
        ];
        expect(await store.sessions.importSessions(testId, changed, admin)).toEqual({ inserted: 1, updated: 2, unchanged: 1 });
        expect((await store.directory.getTest(testId))?.sessionCount).toBe(4);
        expect((await store.directory.findVisibleTest(testId, 'ada@example.com'))?.sessionCount).toBe(4);
        expect((await store.directory.listTests(uuid(1, 'ccccccc0')))[0]?.sessionCount).toBe(4);
        expect(await store.sessions.listSessions(testId, 0, 10)).toEqual(changed.reverse().map((s) => ({ ...s, testId })));
        expect((await store.audit.list()).filter((e) => e.action === 'sessions.import').map((e) => e.details)).toEqual([
          { inserted: 3, updated: 0, unchanged: 0 },
          { inserted: 0, updated: 0, unchanged: 3 },
          { inserted: 1, updated: 2, unchanged: 1 },
        ]);
      });

      it('applies a session listed twice in one batch in order: the last one wins', async () => {
        const { testId } = await workspaceWithTest(1);
        const result = await store.sessions.importSessions(testId, [session(1, T0), session(1, T0 + HOUR, { status: 'LATER' }), session(1, T0 + HOUR, { status: 'LATER' })], admin);
        expect(result).toEqual({ inserted: 1, updated: 1, unchanged: 1 });
        expect(await store.sessions.listSessions(testId, 0, 10)).toEqual([{ ...session(1, T0 + HOUR, { status: 'LATER' }), testId }]);
        expect((await store.directory.getTest(testId))?.sessionCount).toBe(1);
      });

      it('moves a session in the order when its startTime changes', async () => {
        const { testId } = await workspaceWithTest(1);
        await store.sessions.importSessions(testId, [session(1, T0), session(2, T0 + MINUTE)], admin);
        await store.sessions.importSessions(testId, [session(1, T0 + HOUR)], admin);
        expect((await store.sessions.listSessions(testId, 0, 10)).map((s) => s.sessionId)).toEqual([session(1, 0).sessionId, session(2, 0).sessionId]);
      });

      it('refuses a batch holding another test’s session, writing nothing of it', async () => {
        const a = await workspaceWithTest(1);
        const b = await workspaceWithTest(2);
        await store.sessions.importSessions(a.testId, [session(1, T0)], admin);
        const auditBefore = await store.audit.list();
        const batch = [session(10, T0), session(1, T0 + HOUR, { status: 'STOLEN' }), session(11, T0)];
        const error = await conflict(store.sessions.importSessions(b.testId, batch, admin));
        expect(error.code).toBe('foreign_session');
        expect(error.message).toContain(session(1, 0).sessionId);
        expect(await store.sessions.listSessions(b.testId, 0, 10)).toEqual([]);
        expect((await store.directory.getTest(b.testId))?.sessionCount).toBe(0);
        expect(await store.sessions.listSessions(a.testId, 0, 10)).toEqual([{ ...session(1, T0), testId: a.testId }]);
        expect(await store.audit.list()).toEqual(auditBefore);
      });

      it('keeps any text exactly, tabs, newlines and backslashes included', async () => {
        const { testId } = await workspaceWithTest(1);
        const status = 'IN\tPROGRESS\\N\r\nnext \\ line';
        await store.sessions.importSessions(testId, [session(1, T0, { status, audienceId: null })], admin);
        expect((await store.sessions.listSessions(testId, 0, 10)).map((s) => [s.status, s.audienceId])).toEqual([[status, null]]);
      });

      it('is all-or-nothing for large batches too', async () => {
        const a = await workspaceWithTest(1);
        const b = await workspaceWithTest(2);
        await store.sessions.importSessions(a.testId, [session(1, T0)], admin);
        const big = Array.from({ length: 2500 }, (_, i) => session(i + 100, T0 + i * 1000));
        const error = await conflict(store.sessions.importSessions(b.testId, [...big, session(1, T0)], admin));
        expect(error.code).toBe('foreign_session');
        expect(await store.sessions.listSessions(b.testId, 0, 10)).toEqual([]);
        expect(await store.sessions.importSessions(b.testId, big, admin)).toEqual({ inserted: 2500, updated: 0, unchanged: 0 });
        expect((await store.directory.getTest(b.testId))?.sessionCount).toBe(2500);
        expect((await store.sessions.listSessions(b.testId, 0, 1))[0]?.sessionId).toBe(big[2499]?.sessionId);
        expect(await store.sessions.importSessions(b.testId, big, admin)).toEqual({ inserted: 0, updated: 0, unchanged: 2500 });
      });

      it('refuses an unknown test; an empty batch changes nothing', async () => {
        expect((await conflict(store.sessions.importSessions(uuid(99), [session(1, T0)], admin))).code).toBe('not_found');
        const { testId } = await workspaceWithTest(1);
        expect(await store.sessions.importSessions(testId, [], admin)).toEqual({ inserted: 0, updated: 0, unchanged: 0 });
        expect(await store.sessions.listSessions(uuid(99), 0, 10)).toEqual([]);
      });

      describe('importSessionStream', () => {
        /** Yields each batch in turn, as a file reader would; throws `failAfter`'s error once those batches are out. */
        async function* streamOf(batches: SessionInput[][], fail?: Error): AsyncGenerator<SessionInput[]> {
          for (const batch of batches) {
            await Promise.resolve();
            yield batch;
          }
          if (fail) throw fail;
        }
        const range = (from: number, count: number, startOf: (n: number) => number = (n) => T0 + n * 1000) =>
          Array.from({ length: count }, (_, i) => session(from + i, startOf(from + i)));
        const importActions = async () => (await store.audit.list()).filter((e) => e.action === 'sessions.import');

        it('imports batch after batch as one import: counts, session count, one audit event', async () => {
          const { testId } = await workspaceWithTest(1);
          await store.sessions.importSessions(testId, [session(1, T0), session(2, T0)], admin);
          const batches = [[session(1, T0), session(2, T0, { status: 'ABANDONED' }), session(3, T0)], [], range(4, 3)];
          expect(await store.sessions.importSessionStream(testId, streamOf(batches), admin)).toEqual({ inserted: 4, updated: 1, unchanged: 1 });
          expect((await store.directory.getTest(testId))?.sessionCount).toBe(6);
          expect((await store.sessions.listSessions(testId, 0, 10)).map((s) => s.sessionId)).toEqual(
            [6, 5, 4, 3, 2, 1].map((n) => session(n, 0).sessionId),
          );
          expect((await store.sessions.listSessions(testId, 4, 1))[0]?.status).toBe('ABANDONED');
          expect((await importActions()).map((e) => e.details)).toEqual([
            { inserted: 2, updated: 0, unchanged: 0 },
            { inserted: 4, updated: 1, unchanged: 1 },
          ]);
        });

        it('writes nothing when the stream fails midway, and rethrows its error', async () => {
          const { testId } = await workspaceWithTest(1);
          await store.sessions.importSessions(testId, [session(1, T0), session(2, T0 + MINUTE)], admin);
          const sessionsBefore = await store.sessions.listSessions(testId, 0, 100);
          const auditBefore = await store.audit.list();
          const failure = new Error('line 9: not valid JSON');
          const batches = [[session(1, T0, { status: 'CHANGED' }), session(3, T0)], range(10, 50)];
          await expect(store.sessions.importSessionStream(testId, streamOf(batches, failure), admin)).rejects.toBe(failure);
          expect(await store.sessions.listSessions(testId, 0, 100)).toEqual(sessionsBefore);
          expect((await store.directory.getTest(testId))?.sessionCount).toBe(2);
          expect(await store.audit.list()).toEqual(auditBefore);
          // Nothing is left half-done: the same stream, whole this time, imports.
          expect(await store.sessions.importSessionStream(testId, streamOf(batches), admin)).toEqual({ inserted: 51, updated: 1, unchanged: 0 });
          expect((await store.directory.getTest(testId))?.sessionCount).toBe(53);
        });

        it('applies a session repeated in a later batch in order: the last one wins', async () => {
          const { testId } = await workspaceWithTest(1);
          const batches = [[session(1, T0), session(2, T0)], [session(1, T0 + HOUR, { status: 'LATER' }), session(3, T0)], [session(1, T0 + HOUR, { status: 'LATER' })]];
          expect(await store.sessions.importSessionStream(testId, streamOf(batches), admin)).toEqual({ inserted: 3, updated: 1, unchanged: 1 });
          expect((await store.sessions.listSessions(testId, 0, 1))[0]).toEqual({ ...session(1, T0 + HOUR, { status: 'LATER' }), testId });
          expect((await store.directory.getTest(testId))?.sessionCount).toBe(3);
        });

        it('refuses a stream holding another test’s session in a late batch, writing none of it', async () => {
          const a = await workspaceWithTest(1);
          const b = await workspaceWithTest(2);
          await store.sessions.importSessions(a.testId, [session(1, T0)], admin);
          const error = await conflict(store.sessions.importSessionStream(b.testId, streamOf([range(100, 20), [session(1, T0 + HOUR)]]), admin));
          expect(error.code).toBe('foreign_session');
          expect(error.message).toBe(`session ${session(1, 0).sessionId} belongs to another test`);
          expect(await store.sessions.listSessions(b.testId, 0, 10)).toEqual([]);
          expect((await store.directory.getTest(b.testId))?.sessionCount).toBe(0);
          expect(await store.sessions.listSessions(a.testId, 0, 10)).toEqual([{ ...session(1, T0), testId: a.testId }]);
          expect((await conflict(store.sessions.importSessionStream(uuid(99), streamOf([[session(5, T0)]]), admin))).code).toBe('not_found');
        });

        it('imports tens of thousands of sessions in any order, then finds them all unchanged', async () => {
          const a = await workspaceWithTest(1);
          const b = await workspaceWithTest(2);
          await store.sessions.importSessions(a.testId, range(1, 10), admin);
          const batchesOf = (rows: SessionInput[]) => Array.from({ length: Math.ceil(rows.length / 5000) }, (_, i) => rows.slice(i * 5000, (i + 1) * 5000));
          const oldestFirst = range(1000, 25_000);
          expect(await store.sessions.importSessionStream(b.testId, streamOf(batchesOf(oldestFirst)), admin)).toEqual({ inserted: 25_000, updated: 0, unchanged: 0 });
          const newestFirst = range(100_000, 25_000).reverse();
          const shuffled = range(200_000, 25_000, (n) => T0 + ((n * 7919) % 25_000) * 1000);
          expect(await store.sessions.importSessionStream(b.testId, streamOf(batchesOf([...newestFirst, ...shuffled])), admin)).toEqual({ inserted: 50_000, updated: 0, unchanged: 0 });
          expect((await store.directory.getTest(b.testId))?.sessionCount).toBe(75_000);
          expect((await store.directory.getTest(a.testId))?.sessionCount).toBe(10);

          const stored = await store.sessions.listSessions(b.testId, 0, 100_000);
          expect(stored.map((s) => s.sessionId).sort()).toEqual([...oldestFirst, ...newestFirst, ...shuffled].map((s) => s.sessionId).sort());
          expect(stored.find((s) => s.sessionId === shuffled[123]!.sessionId)).toEqual({ ...shuffled[123], testId: b.testId });
          expect(await store.sessions.importSessionStream(b.testId, streamOf(batchesOf(oldestFirst)), admin)).toEqual({ inserted: 0, updated: 0, unchanged: 25_000 });

          // A sessionId repeated far apart in a big stream is still applied in order.
          const moved = session(300_000, T0 + 100 * HOUR, { status: 'MOVED' });
          const withRepeat = [...range(300_000, 24_999), moved];
          expect(await store.sessions.importSessionStream(b.testId, streamOf(batchesOf(withRepeat)), admin)).toEqual({ inserted: 24_999, updated: 1, unchanged: 0 });
          expect((await store.sessions.listSessions(b.testId, 0, 1))[0]).toEqual({ ...moved, testId: b.testId });
          expect((await store.directory.getTest(b.testId))?.sessionCount).toBe(99_999);
          // Another test's session in a big stream: refused, nothing written.
          const stolen = [...range(400_000, 24_999), session(1, T0)];
          expect((await conflict(store.sessions.importSessionStream(b.testId, streamOf(batchesOf(stolen)), admin))).code).toBe('foreign_session');
          expect((await store.directory.getTest(b.testId))?.sessionCount).toBe(99_999);
          expect(await store.sessions.listSessions(b.testId, 0, 100_000)).toHaveLength(99_999);
        });
      });

      it('lists newest first, ties by sessionId descending, in pages that never overlap', async () => {
        const { testId } = await workspaceWithTest(1);
        const other = await workspaceWithTest(2);
        // Many ties on startTime, ids inserted out of order.
        const rows = [7, 3, 12, 1, 9, 4, 11, 2, 8, 5, 10, 6].map((n) => session(n, T0 + (n % 3) * MINUTE));
        await store.sessions.importSessions(testId, rows, admin);
        await store.sessions.importSessions(other.testId, [session(50, T0 + HOUR)], admin);
        const expected = [...rows]
          .sort((x, y) => y.startTime - x.startTime || (x.sessionId < y.sessionId ? 1 : -1))
          .map((s) => ({ ...s, testId }));
        expect(await store.sessions.listSessions(testId, 0, 100)).toEqual(expected);
        const pages = [];
        for (let offset = 0; offset < rows.length; offset += 5) pages.push(await store.sessions.listSessions(testId, offset, 5));
        expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
        expect(pages.flat()).toEqual(expected);
        expect(await store.sessions.listSessions(testId, 12, 5)).toEqual([]);
        expect(await store.sessions.listSessions(testId, 3, 2)).toEqual(expected.slice(3, 5));
      });

      it('lists COMPLETE sessions by keyset, after or before any key, and counts them; finds a session by id', async () => {
        const { testId } = await workspaceWithTest(1);
        const other = await workspaceWithTest(2);
        const rows = [7, 3, 12, 1, 9, 4, 11, 2, 8, 5, 10, 6].map((n) =>
          session(n, T0 + (n % 3) * MINUTE, n % 4 === 0 ? { status: 'ABANDONED', finishTime: null } : {}),
        );
        await store.sessions.importSessions(testId, rows, admin);
        await store.sessions.importSessions(other.testId, [session(50, T0 + HOUR)], admin);
        const completed = (await store.sessions.listSessions(testId, 0, 100)).filter((x) => x.status === 'COMPLETE');
        expect(completed).toHaveLength(9);
        expect(await store.sessions.countSessions(testId, 'COMPLETE')).toBe(9);
        expect(await store.sessions.listCompletedSessions(testId, 100)).toEqual(completed);
        expect(await store.sessions.listCompletedSessions(testId, 4)).toEqual(completed.slice(0, 4));
        for (let i = 0; i < completed.length; i++) {
          const key = { startTime: completed[i]!.startTime, sessionId: completed[i]!.sessionId };
          expect(await store.sessions.listCompletedSessions(testId, 3, { key, direction: 'after' })).toEqual(completed.slice(i + 1, i + 4));
          expect(await store.sessions.listCompletedSessions(testId, 3, { key, direction: 'before' })).toEqual(completed.slice(Math.max(0, i - 3), i));
        }
        expect(await store.sessions.findSession(rows[0]!.sessionId)).toEqual({ ...rows[0], testId });
        expect(await store.sessions.findSession(uuid(50, '5e55105e'))).toEqual({ ...session(50, T0 + HOUR), testId: other.testId });
        expect(await store.sessions.findSession(uuid(99))).toBeNull();
      });

      it('seeks past a key, and lists the keys of every Nth session as anchors', async () => {
        const { testId } = await workspaceWithTest(1);
        const rows = [7, 3, 12, 1, 9, 4, 11, 2, 8, 5, 10, 6].map((n) => session(n, T0 + (n % 3) * MINUTE));
        await store.sessions.importSessions(testId, rows, admin);
        const all = await store.sessions.listSessions(testId, 0, 100);
        const keyOf = (s: { startTime: number; sessionId: string }) => ({ startTime: s.startTime, sessionId: s.sessionId });
        // Positions 3, 7, 11 (every 4th, 0-based every-1), limited to the first 10 sessions.
        expect(await store.sessions.listSessionKeys(testId, 4, 10)).toEqual([keyOf(all[3]!), keyOf(all[7]!)]);
        expect(await store.sessions.listSessionKeys(testId, 4, 100)).toEqual([keyOf(all[3]!), keyOf(all[7]!), keyOf(all[11]!)]);
        // A tie on startTime is broken by sessionId, so seeking past any key is exact.
        for (let i = 0; i < all.length; i++) {
          expect(await store.sessions.listSessions(testId, 0, 100, { after: keyOf(all[i]!) })).toEqual(all.slice(i + 1));
          expect(await store.sessions.listSessions(testId, 1, 2, { after: keyOf(all[i]!) })).toEqual(all.slice(i + 2, i + 4));
        }
      });

      describe('by status (the Results API lists completed sessions only)', () => {
        const STATUSES = ['COMPLETE', 'IN_PROGRESS', 'COMPLETE', 'ABANDONED', 'COMPLETE', 'SCREENED_OUT'];
        /** 30 sessions, statuses interleaved, many startTime ties, ids out of order. */
        const mixed = () =>
          Array.from({ length: 30 }, (_, i) => (i * 17) % 30).map((n) =>
            session(n + 1, T0 + (n % 4) * MINUTE, { status: STATUSES[n % STATUSES.length]!, finishTime: n % 6 === 1 ? null : T0 + HOUR }),
          );
        const keyOf = (s: { startTime: number; sessionId: string }) => ({ startTime: s.startTime, sessionId: s.sessionId });

        it('keeps every status stored and counted, and lists one status in page order, in pages that never overlap', async () => {
          const { testId } = await workspaceWithTest(1);
          const other = await workspaceWithTest(2);
          const rows = mixed();
          await store.sessions.importSessions(testId, rows, admin);
          await store.sessions.importSessions(other.testId, [session(90, T0 + HOUR), session(91, T0 + HOUR, { status: 'ABANDONED' })], admin);

          expect(await store.sessions.listSessions(testId, 0, 100)).toHaveLength(30);
          expect((await store.directory.getTest(testId))?.sessionCount).toBe(30);
          expect(await store.sessions.countSessionsByStatus(testId)).toEqual({ ABANDONED: 5, COMPLETE: 15, IN_PROGRESS: 5, SCREENED_OUT: 5 });
          expect(await store.sessions.countSessions(testId, 'COMPLETE')).toBe(15);
          expect(await store.sessions.countSessions(other.testId, 'COMPLETE')).toBe(1);
          expect(await store.sessions.countSessions(uuid(99), 'COMPLETE')).toBe(0);

          const expected = rows
            .filter((s) => s.status === 'COMPLETE')
            .sort((x, y) => y.startTime - x.startTime || (x.sessionId < y.sessionId ? 1 : -1))
            .map((s) => ({ ...s, testId }));
          expect(await store.sessions.listSessions(testId, 0, 100, { status: 'COMPLETE' })).toEqual(expected);
          const pages = [];
          for (let offset = 0; offset < 15; offset += 4) pages.push(await store.sessions.listSessions(testId, offset, 4, { status: 'COMPLETE' }));
          expect(pages.map((p) => p.length)).toEqual([4, 4, 4, 3]);
          expect(pages.flat()).toEqual(expected);
          expect(await store.sessions.listSessions(testId, 15, 4, { status: 'COMPLETE' })).toEqual([]);
          expect(await store.sessions.listSessions(other.testId, 0, 10, { status: 'COMPLETE' })).toEqual([{ ...session(90, T0 + HOUR), testId: other.testId }]);
        });

        it('seeks past a key and lists anchors among sessions of one status', async () => {
          const { testId } = await workspaceWithTest(1);
          await store.sessions.importSessions(testId, mixed(), admin);
          const completed = await store.sessions.listSessions(testId, 0, 100, { status: 'COMPLETE' });
          expect(await store.sessions.listSessionKeys(testId, 4, 100, 'COMPLETE')).toEqual([3, 7, 11].map((i) => keyOf(completed[i]!)));
          expect(await store.sessions.listSessionKeys(testId, 4, 10, 'COMPLETE')).toEqual([3, 7].map((i) => keyOf(completed[i]!)));
          for (let i = 0; i < completed.length; i++) {
            expect(await store.sessions.listSessions(testId, 0, 100, { status: 'COMPLETE', after: keyOf(completed[i]!) })).toEqual(completed.slice(i + 1));
            expect(await store.sessions.listSessions(testId, 1, 2, { status: 'COMPLETE', after: keyOf(completed[i]!) })).toEqual(completed.slice(i + 2, i + 4));
          }
        });

        it('keeps the per-status counts exact through updates, status changes, refusals and streams', async () => {
          const { testId } = await workspaceWithTest(1);
          const other = await workspaceWithTest(2);
          await store.sessions.importSessions(other.testId, [session(99, T0)], admin);
          const rows = mixed();
          await store.sessions.importSessions(testId, rows, admin);
          // Re-importing unchanged rows changes nothing.
          await store.sessions.importSessions(testId, rows, admin);
          expect(await store.sessions.countSessionsByStatus(testId)).toEqual({ ABANDONED: 5, COMPLETE: 15, IN_PROGRESS: 5, SCREENED_OUT: 5 });

          // An in-progress session completes, a completed one is screened out, and one new arrives.
          const inProgress = rows.find((s) => s.status === 'IN_PROGRESS')!;
          const complete = rows.find((s) => s.status === 'COMPLETE')!;
          await store.sessions.importSessions(
            testId,
            [{ ...inProgress, status: 'COMPLETE', finishTime: T0 + HOUR }, { ...complete, status: 'SCREENED_OUT' }, session(200, T0 + HOUR)],
            admin,
          );
          expect(await store.sessions.countSessionsByStatus(testId)).toEqual({ ABANDONED: 5, COMPLETE: 16, IN_PROGRESS: 4, SCREENED_OUT: 6 });
          const listed = await store.sessions.listSessions(testId, 0, 100, { status: 'COMPLETE' });
          expect(listed).toHaveLength(16);
          expect(listed.map((s) => s.sessionId)).toContain(inProgress.sessionId);
          expect(listed.map((s) => s.sessionId)).not.toContain(complete.sessionId);

          // A refused import leaves the counts as they were.
          expect((await conflict(store.sessions.importSessions(testId, [session(201, T0), session(99, T0)], admin))).code).toBe('foreign_session');
          expect(await store.sessions.countSessions(testId, 'COMPLETE')).toBe(16);

          // A stream of many batches, half of them not complete.
          const more = Array.from({ length: 3000 }, (_, i) => session(1000 + i, T0 + i * 1000, { status: i % 2 === 0 ? 'COMPLETE' : 'ABANDONED' }));
          const batches = [more.slice(0, 1000), more.slice(1000, 2000), more.slice(2000)];
          async function* stream() {
            for (const batch of batches) yield batch;
          }
          await store.sessions.importSessionStream(testId, stream(), admin);
          expect(await store.sessions.countSessionsByStatus(testId)).toEqual({ ABANDONED: 1505, COMPLETE: 1516, IN_PROGRESS: 4, SCREENED_OUT: 6 });
          expect(await store.sessions.listSessions(testId, 0, 10_000, { status: 'COMPLETE' })).toHaveLength(1516);
          expect((await store.directory.getTest(testId))?.sessionCount).toBe(3031);
          expect(await store.sessions.countSessionsByStatus(other.testId)).toEqual({ COMPLETE: 1 });

          // A new session listed twice with different statuses: only its last copy counts.
          await store.sessions.importSessions(testId, [session(5000, T0), session(5000, T0, { status: 'ABANDONED' })], admin);
          expect(await store.sessions.countSessionsByStatus(testId)).toEqual({ ABANDONED: 1506, COMPLETE: 1516, IN_PROGRESS: 4, SCREENED_OUT: 6 });
        });
      });
    });

    describe('signing keys and token revocation', () => {
      const key = (kid: string, createdAt: number) => ({
        kid,
        alg: 'RS256' as const,
        privateKeyPem: `-----BEGIN PRIVATE KEY-----\n${kid}\n-----END PRIVATE KEY-----\n`,
        publicJwk: { kty: 'RSA', kid, n: 'AQAB-n', e: 'AQAB', use: 'sig', alg: 'RS256' },
        createdAt,
      });

      it('adds keys, retiring the previous one, and lists newest first', async () => {
        expect(await store.signingKeys.list()).toEqual([]);
        await store.signingKeys.add(key('k1', T0), admin);
        expect(await store.signingKeys.list()).toEqual([{ ...key('k1', T0), retiredAt: null }]);
        await store.signingKeys.add(key('k2', T0 + HOUR), admin);
        await store.signingKeys.add(key('k0', T0 + 2 * HOUR), admin);
        expect(await store.signingKeys.list()).toEqual([
          { ...key('k0', T0 + 2 * HOUR), retiredAt: null },
          { ...key('k2', T0 + HOUR), retiredAt: T0 + 2 * HOUR },
          { ...key('k1', T0), retiredAt: T0 + HOUR },
        ]);
        expect((await store.audit.list()).map((e) => [e.action, e.subject])).toEqual([
          ['key.add', 'k1'],
          ['key.add', 'k2'],
          ['key.add', 'k0'],
        ]);
      });

      it('remembers a revoked token until it expires; revoking twice is harmless', async () => {
        expect(await store.revocations.isRevoked('jti-1', T0)).toBe(false);
        await store.revocations.revoke('jti-1', T0 + HOUR, admin);
        await store.revocations.revoke('jti-1', T0 + HOUR, admin);
        expect(await store.revocations.isRevoked('jti-1', T0)).toBe(true);
        expect(await store.revocations.isRevoked('jti-1', T0 + HOUR - 1)).toBe(true);
        expect(await store.revocations.isRevoked('jti-1', T0 + HOUR)).toBe(false);
        expect(await store.revocations.isRevoked('jti-2', T0)).toBe(false);
        expect(await store.audit.list()).toMatchObject([{ action: 'token.revoke', subject: 'jti-1', actor: admin.actor }]);
      });
    });

    describe('apps', () => {
      it("announces `access` when a client ID metadata document changes a known app, not when it is first read or read again unchanged", async () => {
        const clientId = 'https://app.example.com/client.json';
        const document = { clientId, name: 'Notes', redirectUris: ['https://app.example.com/cb'], scopes: ['studies:read'] };
        const saves: [string, typeof document][] = [
          ['first read', document],
          ['the same again', document],
          ['a redirect URI added', { ...document, redirectUris: [...document.redirectUris, 'https://app.example.com/cb2'] }],
          ['a scope removed', { ...document, redirectUris: [...document.redirectUris, 'https://app.example.com/cb2'], scopes: [] }],
          ['renamed', { ...document, name: 'Notes 2', redirectUris: [...document.redirectUris, 'https://app.example.com/cb2'], scopes: [] }],
        ];
        const heard: Record<string, Change[]> = {};
        for (const [what, saved] of saves) {
          announced.length = 0;
          expect(await store.apps.saveMetadataApp(saved)).toMatchObject({ ...saved, origin: 'metadata', clientType: 'public', fetchedAt: clock.now() });
          heard[what] = [...announced];
        }
        expect(heard).toEqual({
          'first read': [],
          'the same again': [],
          'a redirect URI added': [{ topic: 'access' }],
          'a scope removed': [{ topic: 'access' }],
          renamed: [{ topic: 'access' }],
        });
      });
    });

    describe('audit', () => {
      it('lists events oldest first, with the clock time; a limit keeps the newest', async () => {
        await store.credentials.createUser('a@example.com', { actor: 'a' });
        clock.advance(MINUTE);
        await store.credentials.createUser('b@example.com', { actor: 'b' });
        const events = await store.audit.list();
        expect(events).toEqual([
          { id: expect.any(Number), at: T0, actor: 'a', action: 'user.create', subject: 'a@example.com', details: { userId: expect.any(String) } },
          { id: expect.any(Number), at: T0 + MINUTE, actor: 'b', action: 'user.create', subject: 'b@example.com', details: { userId: expect.any(String) } },
        ]);
        expect(events[1]!.id).toBeGreaterThan(events[0]!.id);
        await store.credentials.createUser('c@example.com', { actor: 'c' });
        expect((await store.audit.list({ limit: 2 })).map((e) => e.actor)).toEqual(['b', 'c']);
      });

      it('every mutation writes exactly one event, with no secret material', async () => {
        const by = { actor: 'support:carol' };
        const { workspaceId, testId } = { workspaceId: uuid(1), testId: uuid(2) };
        await store.credentials.createUser('ada@example.com', by);
        await store.credentials.setUserStatus('ada@example.com', 'disabled', by);
        await store.credentials.createCredential({ clientId: '0oaA', email: 'ada@example.com', secretHash: 'SECRET-HASH-ONE' }, by);
        await store.credentials.addCredentialSecret({ clientId: '0oaA', secretHash: 'SECRET-HASH-TWO', retireOthersAt: T0 + HOUR }, by);
        await store.credentials.retirePreviousSecrets('0oaA', by);
        await store.credentials.revokeCredential('0oaA', by);
        await store.directory.createWorkspace({ id: workspaceId, name: 'W' }, by);
        await store.directory.addMember(workspaceId, 'ada@example.com', by);
        await store.directory.removeMember(workspaceId, 'ada@example.com', by);
        await store.directory.createTest({ id: testId, workspaceId, title: 'T', productType: 'p' }, by);
        await store.sessions.importSessions(testId, [session(1, T0)], by);
        await store.signingKeys.add({ kid: 'k1', alg: 'RS256', privateKeyPem: 'PRIVATE-PEM', publicJwk: { kty: 'RSA' }, createdAt: T0 }, by);
        await store.revocations.revoke('jti-1', T0 + HOUR, by);
        // Reads and bookkeeping are not audited.
        await store.credentials.recordClientUse('0oaA', T0);
        await store.settings.getOrSet('k', 'v');
        await store.credentials.findPrincipal('0oaA');

        const events = await store.audit.list();
        expect(events.map((e) => [e.action, e.subject])).toEqual([
          ['user.create', 'ada@example.com'],
          ['user.disable', 'ada@example.com'],
          ['credential.issue', '0oaA'],
          ['credential.rotate', '0oaA'],
          ['credential.retire_previous', '0oaA'],
          ['credential.revoke', '0oaA'],
          ['workspace.create', workspaceId],
          ['member.add', workspaceId],
          ['member.remove', workspaceId],
          ['test.create', testId],
          ['sessions.import', testId],
          ['key.add', 'k1'],
          ['token.revoke', 'jti-1'],
        ]);
        expect(events.every((e) => e.actor === by.actor && e.at === T0)).toBe(true);
        const text = JSON.stringify(events);
        expect(text).not.toMatch(/SECRET-HASH|PRIVATE-PEM/);
        expect(events.find((e) => e.action === 'member.add')?.details).toMatchObject({ email: 'ada@example.com' });

        // Every mutation a cache depends on is announced once, after it committed; bookkeeping is not.
        const access = { topic: 'access' };
        expect(announced).toEqual([
          ...Array(10).fill(access),
          { topic: 'sessions', testId },
          { topic: 'keys' },
          access,
        ]);
      });

      it('a refused mutation announces nothing and audits nothing', async () => {
        await store.credentials.createUser('ada@example.com', admin);
        const [auditBefore, announcedBefore] = [await store.audit.list(), announced.length];
        await conflict(store.credentials.createUser('ADA@example.com', admin));
        await conflict(store.directory.addMember(uuid(9), 'ada@example.com', admin));
        await conflict(store.sessions.importSessions(uuid(9), [session(1, T0)], admin));
        expect(announced).toHaveLength(announcedBefore);
        expect(await store.audit.list()).toEqual(auditBefore);
      });
    });
  });
}
