import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Clock } from '../../clock.js';
import { emailKey } from '../email.js';
import { credentialOf, testOf, userOf, workspaceOf, type Row } from '../rows.js';
import {
  StoreConflictError,
  type Actor,
  type AuditEvent,
  type AuditInput,
  type ClientForAuth,
  type Credential,
  type ImportResult,
  type Member,
  type Principal,
  type Session,
  type SessionInput,
  type SessionKey,
  type SigningKey,
  type Store,
  type Test,
  type User,
  type Workspace,
} from '../store.js';
import { sqliteMigrations } from './migrations.js';
import { SqliteSessionImport } from './session-import.js';



const CREDENTIAL_SELECT = `
  SELECT c.client_id, c.user_id, u.email, c.created_at, c.last_used_at, c.revoked_at,
         (SELECT COUNT(*) FROM credential_secrets s
           WHERE s.client_id = c.client_id AND (s.expires_at IS NULL OR s.expires_at > @now)) AS active_secrets
    FROM credentials c JOIN users u ON u.id = c.user_id`;

/**
 * The embedded store: one SQLite file in WAL mode. better-sqlite3 is synchronous, so each
 * method runs to completion before returning its promise; writes are immediate transactions,
 * which also serialize against a CLI process writing the same file.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** Names each import's staging table, so imports interleaving on this connection never share one. */
  private importSerial = 0;

  constructor(
    path: string,
    private readonly clock: Clock,
  ) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    // A CLI command and the server may write at once; wait rather than fail.
    this.db.pragma('busy_timeout = 5000');
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private get<T = Row>(sql: string, params: unknown = {}): T | undefined {
    return this.stmt(sql).get(params as never) as T | undefined;
  }

  private all<T = Row>(sql: string, params: unknown = {}): T[] {
    return this.stmt(sql).all(params as never) as T[];
  }

  private run(sql: string, params: unknown = {}): Database.RunResult {
    return this.stmt(sql).run(params as never);
  }

  /** Runs `fn` in an IMMEDIATE transaction (the write lock is taken up front). */
  private write<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  private audit(by: Actor, action: string, subject: string, details: Record<string, unknown> = {}): void {
    this.run(
      'INSERT INTO audit_events (at, actor, action, subject, details) VALUES (@at, @actor, @action, @subject, @details)',
      { at: this.clock.now(), actor: by.actor, action, subject, details: JSON.stringify(details) },
    );
  }

  async migrate(): Promise<{ applied: number[] }> {
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    return this.write(() => {
      const done = new Set(this.db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
      const applied: number[] = [];
      for (const m of sqliteMigrations) {
        if (done.has(m.version)) continue;
        this.db.exec(m.sql);
        this.db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(m.version, this.clock.now());
        applied.push(m.version);
      }
      return { applied };
    });
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  externalChangeVersion(): number {
    return this.stmt('PRAGMA data_version').pluck().get() as number;
  }

  async getOrSetSetting(key: string, value: string): Promise<string> {
    return this.write(() => {
      this.run('INSERT INTO settings (key, value) VALUES (@key, @value) ON CONFLICT (key) DO NOTHING', { key, value });
      return this.get<{ value: string }>('SELECT value FROM settings WHERE key = @key', { key })!.value;
    });
  }

  // --- users -------------------------------------------------------------------------------

  async createUser(email: string, by: Actor): Promise<User> {
    return this.write(() => {
      const key = emailKey(email);
      if (this.get('SELECT 1 FROM users WHERE email_key = @key', { key })) {
        throw new StoreConflictError('duplicate', `a user with email ${email} already exists`);
      }
      const user: User = { id: randomUUID(), email: email.trim(), status: 'active', createdAt: this.clock.now() };
      this.run(
        'INSERT INTO users (id, email, email_key, status, created_at) VALUES (@id, @email, @key, @status, @createdAt)',
        { ...user, key },
      );
      this.audit(by, 'user.create', user.email, { userId: user.id });
      return user;
    });
  }

  async findUserByEmail(email: string): Promise<User | null> {
    const r = this.get('SELECT * FROM users WHERE email_key = @key', { key: emailKey(email) });
    return r ? userOf(r) : null;
  }

  async listUsers(): Promise<User[]> {
    return this.all('SELECT * FROM users ORDER BY email_key').map(userOf);
  }

  async setUserStatus(email: string, status: User['status'], by: Actor): Promise<User> {
    return this.write(() => {
      const r = this.get('SELECT * FROM users WHERE email_key = @key', { key: emailKey(email) });
      if (!r) throw new StoreConflictError('not_found', `no user with email ${email}`);
      this.run('UPDATE users SET status = @status WHERE id = @id', { status, id: r.id });
      this.audit(by, status === 'disabled' ? 'user.disable' : 'user.enable', r.email as string);
      return { ...userOf(r), status };
    });
  }

  // --- credentials -------------------------------------------------------------------------

  private credential(clientId: string): Credential | null {
    const r = this.get(`${CREDENTIAL_SELECT} WHERE c.client_id = @clientId`, { clientId, now: this.clock.now() });
    return r ? credentialOf(r) : null;
  }

  async createCredential(
    input: { clientId: string; email: string; secretHash: string },
    by: Actor,
  ): Promise<Credential> {
    return this.write(() => {
      const user = this.get('SELECT * FROM users WHERE email_key = @key', { key: emailKey(input.email) });
      if (!user) throw new StoreConflictError('not_found', `no user with email ${input.email}`);
      if (this.get('SELECT 1 FROM credentials WHERE user_id = @id AND revoked_at IS NULL', { id: user.id })) {
        throw new StoreConflictError(
          'duplicate',
          `${user.email} already holds an active credential; rotate or revoke it instead`,
        );
      }
      const now = this.clock.now();
      this.run('INSERT INTO credentials (client_id, user_id, created_at) VALUES (@clientId, @userId, @now)', {
        clientId: input.clientId,
        userId: user.id,
        now,
      });
      this.run('INSERT INTO credential_secrets (client_id, hash, created_at) VALUES (@clientId, @hash, @now)', {
        clientId: input.clientId,
        hash: input.secretHash,
        now,
      });
      this.audit(by, 'credential.issue', input.clientId, { email: user.email });
      return this.credential(input.clientId)!;
    });
  }

  async addCredentialSecret(
    input: { clientId: string; secretHash: string; retireOthersAt: number },
    by: Actor,
  ): Promise<Credential> {
    return this.write(() => {
      const current = this.credential(input.clientId);
      if (!current) throw new StoreConflictError('not_found', `no credential with client id ${input.clientId}`);
      if (current.revokedAt !== null) throw new StoreConflictError('not_found', `credential ${input.clientId} is revoked`);
      const now = this.clock.now();
      // At most two secrets work at once: the new one and the newest previous one (in grace).
      // The newest is the one without an expiry: created_at ties when rotating twice in a millisecond.
      const previous = this.all<{ hash: string }>(
        `SELECT hash FROM credential_secrets
          WHERE client_id = @clientId AND (expires_at IS NULL OR expires_at > @now)
          ORDER BY expires_at IS NULL DESC, created_at DESC`,
        { clientId: input.clientId, now },
      );
      previous.forEach((s, i) => {
        const expiresAt = i === 0 ? Math.max(now, input.retireOthersAt) : now;
        this.run(
          `UPDATE credential_secrets SET expires_at = MIN(COALESCE(expires_at, @expiresAt), @expiresAt)
            WHERE client_id = @clientId AND hash = @hash`,
          { clientId: input.clientId, hash: s.hash, expiresAt },
        );
      });
      this.run('INSERT INTO credential_secrets (client_id, hash, created_at) VALUES (@clientId, @hash, @now)', {
        clientId: input.clientId,
        hash: input.secretHash,
        now,
      });
      this.audit(by, 'credential.rotate', input.clientId, { previousSecretExpiresAt: input.retireOthersAt });
      return this.credential(input.clientId)!;
    });
  }

  async retirePreviousSecrets(clientId: string, by: Actor): Promise<{ credential: Credential; retired: number }> {
    return this.write(() => {
      const current = this.credential(clientId);
      if (!current) throw new StoreConflictError('not_found', `no credential with client id ${clientId}`);
      if (current.revokedAt !== null) throw new StoreConflictError('not_found', `credential ${clientId} is revoked`);
      const now = this.clock.now();
      // Same order as addCredentialSecret: the newest is the working secret without an expiry.
      const working = this.all<{ hash: string }>(
        `SELECT hash FROM credential_secrets
          WHERE client_id = @clientId AND (expires_at IS NULL OR expires_at > @now)
          ORDER BY expires_at IS NULL DESC, created_at DESC`,
        { clientId, now },
      );
      const previous = working.slice(1);
      for (const s of previous) {
        this.run('UPDATE credential_secrets SET expires_at = @now WHERE client_id = @clientId AND hash = @hash', {
          clientId,
          hash: s.hash,
          now,
        });
      }
      if (previous.length > 0) this.audit(by, 'credential.retire_previous', clientId, { retired: previous.length });
      return { credential: this.credential(clientId)!, retired: previous.length };
    });
  }

  async revokeCredential(clientId: string, by: Actor): Promise<Credential> {
    return this.write(() => {
      const current = this.credential(clientId);
      if (!current) throw new StoreConflictError('not_found', `no credential with client id ${clientId}`);
      if (current.revokedAt === null) {
        this.run('UPDATE credentials SET revoked_at = @now WHERE client_id = @clientId', {
          clientId,
          now: this.clock.now(),
        });
        this.audit(by, 'credential.revoke', clientId, { email: current.email });
      }
      return this.credential(clientId)!;
    });
  }

  async listCredentials(): Promise<Credential[]> {
    return this.all(`${CREDENTIAL_SELECT} ORDER BY c.created_at, c.client_id`, { now: this.clock.now() }).map(
      credentialOf,
    );
  }

  async findClientForAuth(clientId: string): Promise<ClientForAuth | null> {
    // One statement whether or not the client exists (a row per secret), so an unknown id
    // costs the database what a known one does.
    const rows = this.all(
      `SELECT c.client_id, c.user_id, c.revoked_at, c.last_used_at, u.status, s.hash, s.created_at, s.expires_at
         FROM credentials c JOIN users u ON u.id = c.user_id
         LEFT JOIN credential_secrets s ON s.client_id = c.client_id
        WHERE c.client_id = @clientId
        ORDER BY s.created_at, s.hash`,
      { clientId },
    );
    const r = rows[0];
    if (!r) return null;
    return {
      clientId,
      userId: r.user_id as string,
      userActive: r.status === 'active',
      revoked: r.revoked_at !== null,
      lastUsedAt: (r.last_used_at as number | null) ?? null,
      secrets: rows
        .filter((s) => s.hash !== null)
        .map((s) => ({
          hash: s.hash as string,
          createdAt: s.created_at as number,
          expiresAt: (s.expires_at as number | null) ?? null,
        })),
    };
  }

  async recordClientUse(clientId: string, at: number): Promise<void> {
    this.run('UPDATE credentials SET last_used_at = @at WHERE client_id = @clientId', { clientId, at });
  }

  async findPrincipal(clientId: string): Promise<Principal | null> {
    const r = this.get(
      `SELECT c.client_id, u.id AS user_id, u.email FROM credentials c JOIN users u ON u.id = c.user_id
        WHERE c.client_id = @clientId AND c.revoked_at IS NULL AND u.status = 'active'`,
      { clientId },
    );
    return r ? { clientId: r.client_id as string, userId: r.user_id as string, email: r.email as string } : null;
  }

  // --- workspaces and members --------------------------------------------------------------

  async createWorkspace(input: { id: string; name: string }, by: Actor): Promise<Workspace> {
    return this.write(() => {
      if (this.get('SELECT 1 FROM workspaces WHERE id = @id', input)) {
        throw new StoreConflictError('duplicate', `workspace ${input.id} already exists`);
      }
      const ws: Workspace = { ...input, createdAt: this.clock.now() };
      this.run('INSERT INTO workspaces (id, name, created_at) VALUES (@id, @name, @createdAt)', ws);
      this.audit(by, 'workspace.create', ws.id, { name: ws.name });
      return ws;
    });
  }

  async listWorkspaces(): Promise<Workspace[]> {
    return this.all('SELECT * FROM workspaces ORDER BY created_at, id').map(workspaceOf);
  }

  async getWorkspace(id: string): Promise<Workspace | null> {
    const r = this.get('SELECT * FROM workspaces WHERE id = @id', { id });
    return r ? workspaceOf(r) : null;
  }

  async listWorkspacesForMember(email: string): Promise<Workspace[]> {
    return this.all(
      `SELECT w.* FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
        WHERE m.email_key = @key ORDER BY w.created_at, w.id`,
      { key: emailKey(email) },
    ).map(workspaceOf);
  }

  private requireWorkspace(id: string): void {
    if (!this.get('SELECT 1 FROM workspaces WHERE id = @id', { id })) {
      throw new StoreConflictError('not_found', `no workspace with id ${id}`);
    }
  }

  async addMember(workspaceId: string, email: string, by: Actor): Promise<Member> {
    return this.write(() => {
      this.requireWorkspace(workspaceId);
      const key = emailKey(email);
      if (this.get('SELECT 1 FROM memberships WHERE workspace_id = @workspaceId AND email_key = @key', { workspaceId, key })) {
        throw new StoreConflictError('duplicate', `${email} is already a member of workspace ${workspaceId}`);
      }
      const member: Member = { workspaceId, email: email.trim(), addedAt: this.clock.now() };
      this.run(
        'INSERT INTO memberships (workspace_id, email_key, email, added_at) VALUES (@workspaceId, @key, @email, @addedAt)',
        { ...member, key },
      );
      this.audit(by, 'member.add', workspaceId, { email: member.email });
      return member;
    });
  }

  async removeMember(workspaceId: string, email: string, by: Actor): Promise<void> {
    this.write(() => {
      this.requireWorkspace(workspaceId);
      const { changes } = this.run('DELETE FROM memberships WHERE workspace_id = @workspaceId AND email_key = @key', {
        workspaceId,
        key: emailKey(email),
      });
      if (changes === 0) throw new StoreConflictError('not_found', `${email} is not a member of workspace ${workspaceId}`);
      this.audit(by, 'member.remove', workspaceId, { email: email.trim() });
    });
  }

  async listMembers(workspaceId: string): Promise<Member[]> {
    this.requireWorkspace(workspaceId);
    return this.all(
      'SELECT workspace_id, email, added_at FROM memberships WHERE workspace_id = @workspaceId ORDER BY email_key',
      { workspaceId },
    ).map((r) => ({ workspaceId: r.workspace_id as string, email: r.email as string, addedAt: r.added_at as number }));
  }

  async isMember(workspaceId: string, email: string): Promise<boolean> {
    return !!this.get('SELECT 1 FROM memberships WHERE workspace_id = @workspaceId AND email_key = @key', {
      workspaceId,
      key: emailKey(email),
    });
  }

  // --- tests and sessions ------------------------------------------------------------------

  async createTest(
    input: { id: string; workspaceId: string; title: string; productType: string },
    by: Actor,
  ): Promise<Test> {
    return this.write(() => {
      this.requireWorkspace(input.workspaceId);
      if (this.get('SELECT 1 FROM tests WHERE id = @id', input)) {
        throw new StoreConflictError('duplicate', `test ${input.id} already exists`);
      }
      const test: Test = { ...input, createdAt: this.clock.now(), sessionCount: 0 };
      this.run(
        `INSERT INTO tests (id, workspace_id, title, product_type, created_at, session_count)
         VALUES (@id, @workspaceId, @title, @productType, @createdAt, 0)`,
        test,
      );
      this.audit(by, 'test.create', test.id, { workspaceId: test.workspaceId, title: test.title });
      return test;
    });
  }

  async getTest(id: string): Promise<Test | null> {
    const r = this.get('SELECT * FROM tests WHERE id = @id', { id });
    return r ? testOf(r) : null;
  }

  async listTests(workspaceId: string): Promise<Test[]> {
    this.requireWorkspace(workspaceId);
    return this.all('SELECT * FROM tests WHERE workspace_id = @workspaceId ORDER BY created_at, id', {
      workspaceId,
    }).map(testOf);
  }

  async findVisibleTest(testId: string, email: string): Promise<Test | null> {
    const r = this.get(
      `SELECT t.* FROM tests t
         JOIN memberships m ON m.workspace_id = t.workspace_id AND m.email_key = @key
        WHERE t.id = @testId`,
      { testId, key: emailKey(email) },
    );
    return r ? testOf(r) : null;
  }

  async importSessions(testId: string, sessions: SessionInput[], by: Actor): Promise<ImportResult> {
    return this.importSessionStream(testId, [sessions], by);
  }

  /**
   * Stages the batches in a TEMP table (no lock, no open transaction while the next batch is
   * read), then writes them in one IMMEDIATE transaction: see SqliteSessionImport.
   */
  async importSessionStream(
    testId: string,
    batches: AsyncIterable<readonly SessionInput[]> | Iterable<readonly SessionInput[]>,
    by: Actor,
  ): Promise<ImportResult> {
    this.requireTest(testId);
    const staging = new SqliteSessionImport(this.db, testId, ++this.importSerial);
    try {
      for await (const batch of batches) staging.stage(batch);
      return this.write(() => {
        this.requireTest(testId);
        const result = staging.apply();
        if (result.inserted > 0) {
          this.run('UPDATE tests SET session_count = session_count + @n WHERE id = @testId', { testId, n: result.inserted });
        }
        this.audit(by, 'sessions.import', testId, { ...result });
        return result;
      });
    } finally {
      staging.discard();
    }
  }

  private requireTest(testId: string): void {
    if (!this.get('SELECT 1 FROM tests WHERE id = @testId', { testId })) {
      throw new StoreConflictError('not_found', `no test with id ${testId}`);
    }
  }

  async listSessions(testId: string, offset: number, limit: number, after?: SessionKey): Promise<Session[]> {
    const rows = after
      ? this.all(
          `SELECT session_id, audience_id, status, start_time, finish_time FROM sessions
            WHERE test_id = @testId AND (start_time, session_id) < (@startTime, @sessionId)
            ORDER BY start_time DESC, session_id DESC LIMIT @limit OFFSET @offset`,
          { testId, limit, offset, startTime: after.startTime, sessionId: after.sessionId },
        )
      : this.all(
          `SELECT session_id, audience_id, status, start_time, finish_time FROM sessions
            WHERE test_id = @testId ORDER BY start_time DESC, session_id DESC LIMIT @limit OFFSET @offset`,
          { testId, limit, offset },
        );
    return rows.map((r) => ({
      sessionId: r.session_id as string,
      testId,
      audienceId: (r.audience_id as string | null) ?? null,
      status: r.status as string,
      startTime: r.start_time as number,
      finishTime: (r.finish_time as number | null) ?? null,
    }));
  }

  async listSessionKeys(testId: string, every: number, upTo: number): Promise<SessionKey[]> {
    return this.all(
      `SELECT start_time, session_id FROM (
         SELECT start_time, session_id, ROW_NUMBER() OVER (ORDER BY start_time DESC, session_id DESC) AS n
           FROM sessions WHERE test_id = @testId ORDER BY start_time DESC, session_id DESC LIMIT @upTo)
        WHERE n % @every = 0 ORDER BY n`,
      { testId, every, upTo },
    ).map((r) => ({ startTime: r.start_time as number, sessionId: r.session_id as string }));
  }

  // --- signing keys, revocations, audit -----------------------------------------------------

  async listSigningKeys(): Promise<SigningKey[]> {
    return this.all('SELECT * FROM signing_keys ORDER BY created_at DESC, kid').map((r) => ({
      kid: r.kid as string,
      alg: 'RS256',
      privateKeyPem: r.private_key_pem as string,
      publicJwk: JSON.parse(r.public_jwk as string) as Record<string, unknown>,
      createdAt: r.created_at as number,
      retiredAt: (r.retired_at as number | null) ?? null,
    }));
  }

  async addSigningKey(key: Omit<SigningKey, 'retiredAt'>, by: Actor): Promise<void> {
    this.write(() => {
      this.run('UPDATE signing_keys SET retired_at = @now WHERE retired_at IS NULL', { now: key.createdAt });
      this.run(
        `INSERT INTO signing_keys (kid, alg, private_key_pem, public_jwk, created_at)
         VALUES (@kid, @alg, @privateKeyPem, @publicJwk, @createdAt)`,
        { ...key, publicJwk: JSON.stringify(key.publicJwk) },
      );
      this.audit(by, 'key.add', key.kid);
    });
  }

  async revokeAccessToken(jti: string, expiresAt: number, by: Actor): Promise<void> {
    this.write(() => {
      this.run('DELETE FROM revoked_tokens WHERE expires_at <= @now', { now: this.clock.now() });
      const { changes } = this.run(
        'INSERT INTO revoked_tokens (jti, expires_at) VALUES (@jti, @expiresAt) ON CONFLICT (jti) DO NOTHING',
        { jti, expiresAt },
      );
      if (changes > 0) this.audit(by, 'token.revoke', jti);
    });
  }

  async isAccessTokenRevoked(jti: string, now: number): Promise<boolean> {
    return !!this.get('SELECT 1 FROM revoked_tokens WHERE jti = @jti AND expires_at > @now', { jti, now });
  }

  async appendAudit(event: AuditInput): Promise<void> {
    this.audit(event, event.action, event.subject, event.details);
  }

  async listAudit(options: { limit?: number } = {}): Promise<AuditEvent[]> {
    return this.all('SELECT * FROM audit_events ORDER BY id DESC LIMIT @limit', { limit: options.limit ?? 1000 })
      .map((r) => ({
        id: r.id as number,
        at: r.at as number,
        actor: r.actor as string,
        action: r.action as string,
        subject: r.subject as string,
        details: JSON.parse(r.details as string) as Record<string, unknown>,
      }))
      .reverse();
  }
}
