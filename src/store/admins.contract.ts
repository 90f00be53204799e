/**
 * The admins repository's contract, run unchanged on every database (wired into
 * sqlite-database.test.ts and postgres-database.test.ts). `makeStore` is as for the store
 * contract: an unmigrated store over a fresh, empty database.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import type { Change } from '../changes/change-feed.js';
import { StoreConflictError } from './conflicts.js';
import type { Announce } from './database.js';
import type { Store } from './open-store.js';
import { rejectionOf } from '../../test/helpers/rejection.js';

const T0 = Date.UTC(2026, 10, 23);
const by = { actor: 'cli:root' };
const uuid = (n: number, prefix = 'adadadad'): string => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const refusal = (promise: Promise<unknown>) => rejectionOf(promise, StoreConflictError);

export function describeAdminsContract(name: string, makeStore: (clock: ManualClock, announce: Announce) => Promise<Store>): void {
  describe(`Admins contract: ${name}`, () => {
    let clock: ManualClock;
    let store: Store;
    let announced: Change[];

    beforeEach(async () => {
      clock = new ManualClock(T0);
      announced = [];
      store = await makeStore(clock, async (change) => void announced.push(change));
      await store.database.migrate();
    });
    afterEach(async () => {
      await store.database.close();
    });

    const create = (n: number, role: 'operator' | 'support' | 'account-admin' = 'support', email = `Admin${n}@Example.com`) =>
      store.admins.createAdmin({ id: uuid(n), email, role, setupTokenHash: `setup-${n}`, setupExpiresAt: T0 + 1000 }, by);

    it('creates an admin awaiting setup; emails are unique ignoring case', async () => {
      const admin = await create(1);
      expect(admin).toEqual({ id: uuid(1), email: 'Admin1@Example.com', role: 'support', passwordSet: false, totpEnabled: false, createdAt: T0 });
      expect((await refusal(create(2, 'operator', 'admin1@example.COM'))).code).toBe('duplicate');
      expect(await store.admins.findAdminForSignIn('ADMIN1@example.com')).toMatchObject({ id: uuid(1), passwordHash: null, totpSecret: null });
      expect(await store.admins.listAdmins()).toEqual([admin]);
      // Nothing the request path caches depends on admins.
      expect(announced).toEqual([]);
      expect((await store.audit.list()).map((e) => [e.action, e.subject])).toEqual([['admin.create', 'Admin1@Example.com']]);
    });

    it('a setup token works once and not after it expires; using it ends the sessions', async () => {
      await create(1);
      await create(2);
      await store.admins.createSession({ idHash: 's1', adminId: uuid(1), csrfToken: 'c', expiresAt: T0 + 10_000 }, (await store.admins.getAdmin(uuid(1)))!);
      expect(await store.admins.completeSetup('setup-1', 'hash-1')).toMatchObject({ id: uuid(1), passwordSet: true });
      expect(await store.admins.findSession('s1')).toBeNull();
      expect(await store.admins.completeSetup('setup-1', 'hash-x')).toBeNull();
      expect((await store.admins.findAdminForSignIn('admin1@example.com'))!.passwordHash).toBe('hash-1');
      clock.advance(1000);
      expect(await store.admins.completeSetup('setup-2', 'hash-2')).toBeNull();
      const renewed = await store.admins.renewSetupLink('admin2@example.com', 'setup-2b', T0 + 5000, by);
      expect(renewed.passwordSet).toBe(false);
      expect(await store.admins.completeSetup('setup-2b', 'hash-2')).toMatchObject({ passwordSet: true });
      expect((await refusal(store.admins.renewSetupLink('nobody@example.com', 'x', T0, by))).code).toBe('not_found');
    });

    it('sessions live until they expire and end when asked', async () => {
      const admin = await create(1);
      await store.admins.createSession({ idHash: 'h', adminId: admin.id, csrfToken: 'csrf', expiresAt: T0 + 1000 }, admin);
      expect(await store.admins.findSession('h')).toEqual({ admin, csrfToken: 'csrf', expiresAt: T0 + 1000 });
      expect(await store.admins.findSession('other')).toBeNull();
      clock.advance(1000);
      expect(await store.admins.findSession('h')).toBeNull();
      await store.admins.createSession({ idHash: 'h2', adminId: admin.id, csrfToken: 'csrf', expiresAt: T0 + 5000 }, admin);
      await store.admins.endSession('h2', admin);
      expect(await store.admins.findSession('h2')).toBeNull();
      expect((await store.audit.list({ action: 'admin' })).map((e) => e.action)).toEqual(['admin.create', 'admin.sign_in', 'admin.sign_in', 'admin.sign_out']);
    });

    it('TOTP: a pending secret is enabled once; each time step is accepted once', async () => {
      const admin = await create(1);
      await store.admins.setPendingTotp(admin.id, 'SECRET');
      expect(await store.admins.pendingTotp(admin.id)).toBe('SECRET');
      expect(await store.admins.enableTotp(admin.id, 'OTHER', 10, by)).toBe(false);
      expect(await store.admins.enableTotp(admin.id, 'SECRET', 10, by)).toBe(true);
      expect(await store.admins.findAdminForSignIn(admin.email)).toMatchObject({ totpSecret: 'SECRET', totpLastStep: 10, totpEnabled: true });
      expect(await store.admins.recordTotpStep(admin.id, 10)).toBe(false);
      expect(await store.admins.recordTotpStep(admin.id, 11)).toBe(true);
      expect(await store.admins.recordTotpStep(admin.id, 11)).toBe(false);
      expect(await store.admins.resetTotp('ADMIN1@example.com', by)).toMatchObject({ totpEnabled: false });
      expect(await store.admins.findAdminForSignIn(admin.email)).toMatchObject({ totpSecret: null, totpLastStep: null });
      expect((await refusal(store.admins.resetTotp('nobody@example.com', by))).code).toBe('not_found');
    });

    it('workspaces are assigned to account admins only, once', async () => {
      const accountAdmin = await create(1, 'account-admin');
      const support = await create(2, 'support');
      const workspace = uuid(1, 'cccccccc');
      await store.directory.createWorkspace({ id: workspace, name: 'W' }, by);
      await store.admins.assignWorkspace(accountAdmin.id, workspace, by);
      expect(await store.admins.assignedWorkspaces(accountAdmin.id)).toEqual([workspace]);
      expect(await store.admins.administers(accountAdmin.id, workspace)).toBe(true);
      expect((await refusal(store.admins.assignWorkspace(accountAdmin.id, workspace, by))).code).toBe('duplicate');
      expect((await refusal(store.admins.assignWorkspace(support.id, workspace, by))).message).toMatch(/only account admins/);
      expect((await refusal(store.admins.assignWorkspace(accountAdmin.id, uuid(9, 'cccccccc'), by))).code).toBe('not_found');
      expect((await refusal(store.admins.assignWorkspace(uuid(9), workspace, by))).code).toBe('not_found');
      await store.admins.unassignWorkspace(accountAdmin.id, workspace, by);
      expect(await store.admins.administers(accountAdmin.id, workspace)).toBe(false);
      expect((await refusal(store.admins.unassignWorkspace(accountAdmin.id, workspace, by))).code).toBe('not_found');
    });

    it('admin API clients: created, found for authentication, revoked once', async () => {
      const admin = await create(1, 'operator');
      const client = await store.admins.createClient({ clientId: 'admAAAAAAAAAAAAAAAAA', adminId: admin.id, secretHash: 'h' }, by);
      expect(client).toEqual({ clientId: 'admAAAAAAAAAAAAAAAAA', admin, createdAt: T0, revokedAt: null });
      expect(await store.admins.findClientForAuth('admAAAAAAAAAAAAAAAAA')).toEqual({ ...client, secretHash: 'h' });
      expect(await store.admins.listClients()).toEqual([client]);
      clock.advance(5);
      expect(await store.admins.revokeClient('admAAAAAAAAAAAAAAAAA', by)).toMatchObject({ revokedAt: T0 + 5 });
      clock.advance(5);
      expect(await store.admins.revokeClient('admAAAAAAAAAAAAAAAAA', by)).toMatchObject({ revokedAt: T0 + 5 });
      expect((await refusal(store.admins.revokeClient('admBBBBBBBBBBBBBBBBB', by))).code).toBe('not_found');
      expect((await store.audit.list({ action: 'admin_client' })).map((e) => e.action)).toEqual(['admin_client.create', 'admin_client.revoke']);
    });
  });
}
