import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import { StoreConflictError, conflict } from './conflicts.js';
import type { Database, Reader, Row } from './database.js';
import { emailKey } from './email.js';
import type { Actor } from './store.js';

/** What an admin may do: `operator` everything, `support` API users and credentials, `account-admin` their workspaces. */
export const ADMIN_ROLES = ['operator', 'support', 'account-admin'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

export interface Admin {
  id: string;
  email: string;
  role: AdminRole;
  /** False until the setup link has been used. */
  passwordSet: boolean;
  totpEnabled: boolean;
  createdAt: number;
}

/** What signing in checks, in one read. Never leaves the server. */
export interface AdminForSignIn extends Admin {
  passwordHash: string | null;
  totpSecret: string | null;
  totpLastStep: number | null;
}

export interface AdminSession {
  admin: Admin;
  csrfToken: string;
  expiresAt: number;
}

const ADMIN_COLUMNS = 'a.id, a.email, a.role, a.password_hash, a.totp_secret, a.totp_last_step, a.created_at';

const adminOf = (r: Row): Admin => ({
  id: r.id as string,
  email: r.email as string,
  role: r.role as AdminRole,
  passwordSet: r.password_hash !== null,
  totpEnabled: r.totp_secret !== null,
  createdAt: r.created_at as number,
});

const adminForSignInOf = (r: Row): AdminForSignIn => ({
  ...adminOf(r),
  passwordHash: (r.password_hash as string | null) ?? null,
  totpSecret: (r.totp_secret as string | null) ?? null,
  totpLastStep: (r.totp_last_step as number | null) ?? null,
});

/** An admin API client: client credentials that act as the admin they belong to. */
export interface AdminClient {
  clientId: string;
  admin: Admin;
  createdAt: number;
  revokedAt: number | null;
}

/** What the admin token endpoint checks, in one read. */
export interface AdminClientForAuth extends AdminClient {
  secretHash: string;
}

/** Every refusal about admins, worded once. */
export const adminConflict = {
  exists: (email: string) => new StoreConflictError('duplicate', `an admin with email ${email} already exists`),
  noAdmin: (ref: string) => new StoreConflictError('not_found', `no admin ${ref}`),
  alreadyAssigned: (email: string, workspaceId: string) =>
    new StoreConflictError('duplicate', `${email} already administers workspace ${workspaceId}`),
  notAssigned: (email: string, workspaceId: string) =>
    new StoreConflictError('not_found', `${email} does not administer workspace ${workspaceId}`),
  notAccountAdmin: (email: string, role: string) =>
    new StoreConflictError('duplicate', `${email} is ${role === 'operator' ? 'an' : 'a'} ${role}: only account admins are assigned workspaces`),
  noClient: (clientId: string) => new StoreConflictError('not_found', `no admin API client with client id ${clientId}`),
};

/**
 * Admin accounts, their sessions and workspace assignments. Nothing the request path caches
 * depends on them (sessions are read from the database on every admin request), so their
 * writes announce nothing.
 */
export class AdminRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** A new admin without a password; `setupTokenHash` is the hash of its one-time setup link. */
  createAdmin(input: { id: string; email: string; role: AdminRole; setupTokenHash: string; setupExpiresAt: number }, by: Actor): Promise<Admin> {
    return this.db.write(null, async (tx) => {
      const createdAt = this.clock.now();
      const inserted = await tx.run(
        `INSERT INTO admins (id, email, email_key, role, setup_token_hash, setup_expires_at, created_at)
         VALUES (@id, @email, @key, @role, @setupTokenHash, @setupExpiresAt, @createdAt) ON CONFLICT DO NOTHING`,
        { ...input, email: input.email.trim(), key: emailKey(input.email), createdAt },
      );
      if (inserted === 0) throw adminConflict.exists(input.email);
      await audit(tx, this.clock, by, 'admin.create', input.email.trim(), { role: input.role });
      return { id: input.id, email: input.email.trim(), role: input.role, passwordSet: false, totpEnabled: false, createdAt };
    });
  }

  /**
   * A new one-time setup link for an existing admin (a lost or expired one): the previous link
   * stops working, the password (if any) stays until the new link is used.
   */
  renewSetupLink(email: string, setupTokenHash: string, setupExpiresAt: number, by: Actor): Promise<Admin> {
    return this.db.write(null, async (tx) => {
      const updated = await tx.run(
        'UPDATE admins SET setup_token_hash = @setupTokenHash, setup_expires_at = @setupExpiresAt WHERE email_key = @key',
        { key: emailKey(email), setupTokenHash, setupExpiresAt },
      );
      if (updated === 0) throw adminConflict.noAdmin(`with email ${email}`);
      const admin = adminOf((await tx.one(`SELECT ${ADMIN_COLUMNS} FROM admins a WHERE a.email_key = @key`, { key: emailKey(email) }))!);
      await audit(tx, this.clock, by, 'admin.setup_link', admin.email, {});
      return admin;
    });
  }

  /**
   * Uses a setup link once: sets the password and forgets the link, if the link exists and has
   * not expired. Its sessions end (a reset password signs out everywhere). Null: no such link.
   */
  completeSetup(setupTokenHash: string, passwordHash: string): Promise<Admin | null> {
    return this.db.write(null, async (tx) => {
      const row = await tx.one(`SELECT ${ADMIN_COLUMNS}, a.setup_expires_at FROM admins a WHERE a.setup_token_hash = @setupTokenHash`, {
        setupTokenHash,
      });
      if (!row || (row.setup_expires_at as number) <= this.clock.now()) return null;
      await tx.run('UPDATE admins SET password_hash = @passwordHash, setup_token_hash = NULL, setup_expires_at = NULL WHERE id = @id', {
        id: row.id,
        passwordHash,
      });
      await tx.run('DELETE FROM admin_sessions WHERE admin_id = @id', { id: row.id });
      const admin = adminOf({ ...row, password_hash: passwordHash });
      await audit(tx, this.clock, { actor: actorOf(admin) }, 'admin.setup', admin.email, {});
      return admin;
    });
  }

  async listAdmins(): Promise<Admin[]> {
    return (await this.db.all(`SELECT ${ADMIN_COLUMNS} FROM admins a ORDER BY a.email_key`)).map(adminOf);
  }

  async getAdmin(id: string): Promise<Admin | null> {
    const r = await this.db.one(`SELECT ${ADMIN_COLUMNS} FROM admins a WHERE a.id = @id`, { id });
    return r ? adminOf(r) : null;
  }

  async findAdminForSignIn(email: string): Promise<AdminForSignIn | null> {
    const r = await this.db.one(`SELECT ${ADMIN_COLUMNS} FROM admins a WHERE a.email_key = @key`, { key: emailKey(email) });
    return r ? adminForSignInOf(r) : null;
  }

  /** Starts a session: only the hash of its cookie value is stored. Expired sessions of the admin go. */
  createSession(input: { idHash: string; adminId: string; csrfToken: string; expiresAt: number }, admin: Admin): Promise<void> {
    return this.db.write(null, async (tx) => {
      const now = this.clock.now();
      await tx.run('DELETE FROM admin_sessions WHERE admin_id = @adminId AND expires_at <= @now', { adminId: input.adminId, now });
      await tx.run(
        `INSERT INTO admin_sessions (id_hash, admin_id, csrf_token, created_at, expires_at)
         VALUES (@idHash, @adminId, @csrfToken, @now, @expiresAt)`,
        { ...input, now },
      );
      await audit(tx, this.clock, { actor: actorOf(admin) }, 'admin.sign_in', admin.email, {});
    });
  }

  /** The live session whose cookie hashes to `idHash`, or null. */
  async findSession(idHash: string): Promise<AdminSession | null> {
    const r = await this.db.one(
      `SELECT ${ADMIN_COLUMNS}, s.csrf_token, s.expires_at FROM admin_sessions s JOIN admins a ON a.id = s.admin_id
        WHERE s.id_hash = @idHash AND s.expires_at > @now`,
      { idHash, now: this.clock.now() },
    );
    return r ? { admin: adminOf(r), csrfToken: r.csrf_token as string, expiresAt: r.expires_at as number } : null;
  }

  endSession(idHash: string, admin: Admin): Promise<void> {
    return this.db.write(null, async (tx) => {
      const deleted = await tx.run('DELETE FROM admin_sessions WHERE id_hash = @idHash', { idHash });
      if (deleted > 0) await audit(tx, this.clock, { actor: actorOf(admin) }, 'admin.sign_out', admin.email, {});
    });
  }

  /** Remembers the TOTP time step just accepted, so the same code cannot be used twice. */
  async recordTotpStep(adminId: string, step: number): Promise<boolean> {
    return this.db.write(null, async (tx) => {
      const updated = await tx.run(
        'UPDATE admins SET totp_last_step = @step WHERE id = @adminId AND (totp_last_step IS NULL OR totp_last_step < @step)',
        { adminId, step },
      );
      return updated > 0;
    });
  }

  /** Keeps a TOTP secret waiting for its first code (enrolment), replacing any earlier one. */
  setPendingTotp(adminId: string, secret: string): Promise<void> {
    return this.db.write(null, async (tx) => {
      await tx.run('UPDATE admins SET totp_pending_secret = @secret WHERE id = @adminId', { adminId, secret });
    });
  }

  async pendingTotp(adminId: string): Promise<string | null> {
    const r = await this.db.one('SELECT totp_pending_secret FROM admins WHERE id = @adminId', { adminId });
    return (r?.totp_pending_secret as string | null | undefined) ?? null;
  }

  /** Makes the pending secret the admin's second factor, if it is still `secret`. */
  enableTotp(adminId: string, secret: string, step: number, by: Actor): Promise<boolean> {
    return this.db.write(null, async (tx) => {
      const updated = await tx.run(
        `UPDATE admins SET totp_secret = totp_pending_secret, totp_pending_secret = NULL, totp_last_step = @step
          WHERE id = @adminId AND totp_pending_secret = @secret`,
        { adminId, secret, step },
      );
      if (updated > 0) await audit(tx, this.clock, by, 'admin.totp_enable', (await requireAdmin(tx, adminId)).email, {});
      return updated > 0;
    });
  }

  /** Turns an admin's second factor off (a lost phone); they enrol again after signing in. */
  resetTotp(email: string, by: Actor): Promise<Admin> {
    return this.db.write(null, async (tx) => {
      const updated = await tx.run(
        'UPDATE admins SET totp_secret = NULL, totp_pending_secret = NULL, totp_last_step = NULL WHERE email_key = @key',
        { key: emailKey(email) },
      );
      if (updated === 0) throw adminConflict.noAdmin(`with email ${email}`);
      const admin = adminOf((await tx.one(`SELECT ${ADMIN_COLUMNS} FROM admins a WHERE a.email_key = @key`, { key: emailKey(email) }))!);
      await audit(tx, this.clock, by, 'admin.totp_reset', admin.email, {});
      return admin;
    });
  }

  /** Lets an account admin administer a workspace. */
  assignWorkspace(adminId: string, workspaceId: string, by: Actor): Promise<void> {
    return this.db.write(null, async (tx) => {
      const admin = await requireAdmin(tx, adminId);
      if (admin.role !== 'account-admin') throw adminConflict.notAccountAdmin(admin.email, admin.role);
      if (!(await tx.one('SELECT 1 AS found FROM workspaces WHERE id = @workspaceId', { workspaceId }))) throw conflict.noWorkspace(workspaceId);
      const inserted = await tx.run(
        `INSERT INTO admin_workspaces (admin_id, workspace_id, assigned_at) VALUES (@adminId, @workspaceId, @now)
         ON CONFLICT (admin_id, workspace_id) DO NOTHING`,
        { adminId, workspaceId, now: this.clock.now() },
      );
      if (inserted === 0) throw adminConflict.alreadyAssigned(admin.email, workspaceId);
      await audit(tx, this.clock, by, 'admin.assign', workspaceId, { admin: admin.email });
    });
  }

  unassignWorkspace(adminId: string, workspaceId: string, by: Actor): Promise<void> {
    return this.db.write(null, async (tx) => {
      const admin = await requireAdmin(tx, adminId);
      const deleted = await tx.run('DELETE FROM admin_workspaces WHERE admin_id = @adminId AND workspace_id = @workspaceId', {
        adminId,
        workspaceId,
      });
      if (deleted === 0) throw adminConflict.notAssigned(admin.email, workspaceId);
      await audit(tx, this.clock, by, 'admin.unassign', workspaceId, { admin: admin.email });
    });
  }

  /** The ids of the workspaces an admin administers, in id order. */
  async assignedWorkspaces(adminId: string): Promise<string[]> {
    const rows = await this.db.all('SELECT workspace_id FROM admin_workspaces WHERE admin_id = @adminId ORDER BY workspace_id', { adminId });
    return rows.map((r) => r.workspace_id as string);
  }

  async administers(adminId: string, workspaceId: string): Promise<boolean> {
    return !!(await this.db.one('SELECT 1 AS found FROM admin_workspaces WHERE admin_id = @adminId AND workspace_id = @workspaceId', {
      adminId,
      workspaceId,
    }));
  }

  /** A new admin API client of `adminId`; only a keyed hash of its secret is stored. */
  createClient(input: { clientId: string; adminId: string; secretHash: string }, by: Actor): Promise<AdminClient> {
    return this.db.write(null, async (tx) => {
      const admin = await requireAdmin(tx, input.adminId);
      const createdAt = this.clock.now();
      await tx.run('INSERT INTO admin_clients (client_id, admin_id, secret_hash, created_at) VALUES (@clientId, @adminId, @secretHash, @createdAt)', {
        ...input,
        createdAt,
      });
      await audit(tx, this.clock, by, 'admin_client.create', input.clientId, { admin: admin.email });
      return { clientId: input.clientId, admin, createdAt, revokedAt: null };
    });
  }

  /** Revokes an admin API client: its tokens stop working on their next request. */
  revokeClient(clientId: string, by: Actor): Promise<AdminClient> {
    return this.db.write(null, async (tx) => {
      const revoked = await tx.run('UPDATE admin_clients SET revoked_at = @now WHERE client_id = @clientId AND revoked_at IS NULL', {
        clientId,
        now: this.clock.now(),
      });
      const client = await findClient(tx, clientId);
      if (!client) throw adminConflict.noClient(clientId);
      if (revoked > 0) await audit(tx, this.clock, by, 'admin_client.revoke', clientId, { admin: client.admin.email });
      return strip(client);
    });
  }

  async listClients(): Promise<AdminClient[]> {
    const rows = await this.db.all(`${CLIENT_SELECT} ORDER BY c.created_at, c.client_id`);
    return rows.map(clientOf).map(strip);
  }

  async findClientForAuth(clientId: string): Promise<AdminClientForAuth | null> {
    return findClient(this.db, clientId);
  }
}

const CLIENT_SELECT = `SELECT c.client_id, c.secret_hash, c.created_at AS client_created_at, c.revoked_at, ${ADMIN_COLUMNS}
                         FROM admin_clients c JOIN admins a ON a.id = c.admin_id`;

const clientOf = (r: Row): AdminClientForAuth => ({
  clientId: r.client_id as string,
  secretHash: r.secret_hash as string,
  admin: adminOf(r),
  createdAt: r.client_created_at as number,
  revokedAt: (r.revoked_at as number | null) ?? null,
});

const strip = ({ secretHash: _hash, ...client }: AdminClientForAuth): AdminClient => client;

async function findClient(db: Reader, clientId: string): Promise<AdminClientForAuth | null> {
  const r = await db.one(`${CLIENT_SELECT} WHERE c.client_id = @clientId`, { clientId });
  return r ? clientOf(r) : null;
}

/** How the audit log names an admin acting through the admin API. */
export const actorOf = (admin: Pick<Admin, 'email'>): string => `admin:${admin.email}`;

async function requireAdmin(db: Reader, id: string): Promise<Admin> {
  const r = await db.one(`SELECT ${ADMIN_COLUMNS} FROM admins a WHERE a.id = @id`, { id });
  if (!r) throw adminConflict.noAdmin(`with id ${id}`);
  return adminOf(r);
}
