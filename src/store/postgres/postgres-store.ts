import { randomUUID } from 'node:crypto';
import pg from 'pg';
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
import { postgresMigrations } from './migrations.js';

type Db = pg.Pool | pg.PoolClient;

export interface PostgresStoreOptions {
  /** Keep all tables in this schema (created by migrate()); lets tests and tenants share a database. */
  schema?: string;
  poolSize?: number;
}

const INT8_OID = 20;
// Epoch milliseconds and counts fit a double exactly; pg would otherwise return BIGINT as string.
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** Rows per statement in importSessions: bounds statement size, memory and lock hold per step. */
const IMPORT_CHUNK = 1000;
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;


const CREDENTIAL_SELECT = `
  SELECT c.client_id, c.user_id, u.email, c.created_at, c.last_used_at, c.revoked_at,
         (SELECT COUNT(*) FROM credential_secrets s
           WHERE s.client_id = c.client_id AND (s.expires_at IS NULL OR s.expires_at > $1)) AS active_secrets
    FROM credentials c JOIN users u ON u.id = c.user_id`;

/**
 * Hot-path reads: named, so each pooled connection parses and plans them once. They list their
 * columns (no `*`): a prepared `*` fails on live connections once a migration adds a column.
 */
const SQL = {
  findClientForAuth: {
    name: 'find_client_for_auth',
    text: `SELECT c.client_id, c.user_id, c.revoked_at, c.last_used_at, u.status,
                  COALESCE((SELECT json_agg(json_build_object('hash', s.hash, 'createdAt', s.created_at,
                                                              'expiresAt', s.expires_at) ORDER BY s.created_at, s.hash)
                              FROM credential_secrets s WHERE s.client_id = c.client_id), '[]') AS secrets
             FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.client_id = $1`,
  },
  recordClientUse: { name: 'record_client_use', text: 'UPDATE credentials SET last_used_at = $2 WHERE client_id = $1' },
  findPrincipal: {
    name: 'find_principal',
    text: `SELECT c.client_id, u.id AS user_id, u.email FROM credentials c JOIN users u ON u.id = c.user_id
            WHERE c.client_id = $1 AND c.revoked_at IS NULL AND u.status = 'active'`,
  },
  findVisibleTest: {
    name: 'find_visible_test',
    text: `SELECT t.id, t.workspace_id, t.title, t.product_type, t.created_at, t.session_count
             FROM tests t JOIN memberships m ON m.workspace_id = t.workspace_id AND m.email_key = $2
            WHERE t.id = $1`,
  },
  listSessions: {
    name: 'list_sessions',
    text: `SELECT session_id, audience_id, status, start_time, finish_time FROM sessions
            WHERE test_id = $1 ORDER BY start_time DESC, session_id DESC LIMIT $2 OFFSET $3`,
  },
  listSessionsAfter: {
    name: 'list_sessions_after',
    text: `SELECT session_id, audience_id, status, start_time, finish_time FROM sessions
            WHERE test_id = $1 AND (start_time, session_id) < ($4, $5)
            ORDER BY start_time DESC, session_id DESC LIMIT $2 OFFSET $3`,
  },
  listSessionKeys: {
    name: 'list_session_keys',
    text: `SELECT start_time, session_id FROM (
             SELECT start_time, session_id, ROW_NUMBER() OVER (ORDER BY start_time DESC, session_id DESC) AS n
               FROM sessions WHERE test_id = $1 ORDER BY start_time DESC, session_id DESC LIMIT $3) AS page_order
            WHERE n % $2 = 0 ORDER BY n`,
  },
  isAccessTokenRevoked: {
    name: 'is_access_token_revoked',
    text: 'SELECT 1 FROM revoked_tokens WHERE jti = $1 AND expires_at > $2',
  },
  // Upserts one chunk. Rows of another test are "updated" too, only so that RETURNING reports
  // them (test_id is never changed); the caller then throws and the transaction rolls back.
  // xmax = 0 marks a freshly inserted row; unchanged rows of this test are not returned.
  importChunk: {
    name: 'import_sessions_chunk',
    text: `INSERT INTO sessions AS s (test_id, session_id, audience_id, status, start_time, finish_time)
           SELECT $1::text, i.* FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[])
                                  AS i (session_id, audience_id, status, start_time, finish_time)
           ON CONFLICT (session_id) DO UPDATE
              SET audience_id = excluded.audience_id, status = excluded.status,
                  start_time = excluded.start_time, finish_time = excluded.finish_time
            WHERE s.test_id <> excluded.test_id
               OR (s.audience_id, s.status, s.start_time, s.finish_time)
                  IS DISTINCT FROM (excluded.audience_id, excluded.status, excluded.start_time, excluded.finish_time)
           RETURNING s.session_id, s.test_id, s.xmax = 0 AS inserted`,
  },
} as const;

/** Adds `-c search_path=<schema>` to the URL's startup options (the URL's own options win otherwise). */
function withSearchPath(databaseUrl: string, schema: string): string {
  const url = new URL(databaseUrl);
  const existing = url.searchParams.get('options');
  url.searchParams.set('options', [existing, `-c search_path=${schema}`].filter(Boolean).join(' '));
  return url.toString();
}

/**
 * The production store: PostgreSQL through a connection pool. Every mutation runs in one
 * transaction with its audit event; rows that decide a mutation are locked (FOR UPDATE) or
 * guarded by unique constraints, so several server and CLI processes can write at once.
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly pool: pg.Pool;
  private readonly schema: string | undefined;
  private closed = false;

  constructor(
    databaseUrl: string,
    private readonly clock: Clock,
    options: PostgresStoreOptions = {},
  ) {
    this.schema = options.schema;
    if (this.schema !== undefined && !SCHEMA_PATTERN.test(this.schema)) {
      throw new Error(`schema must match ${SCHEMA_PATTERN} (got "${this.schema}")`);
    }
    this.pool = new pg.Pool({
      connectionString: this.schema ? withSearchPath(databaseUrl, this.schema) : databaseUrl,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 10_000,
      types,
    });
    // An idle connection dropped by the server must not crash the process; the next query
    // gets a fresh connection or reports the error to its caller.
    this.pool.on('error', () => undefined);
  }

  poolStats(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  /** Runs `fn` in a transaction on one connection: COMMIT on success, ROLLBACK on any error. */
  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true; // do not hand a connection in an unknown state back to the pool
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  private async one(db: Db, text: string, values: unknown[] = []): Promise<Row | undefined> {
    return (await db.query<Row>(text, values)).rows[0];
  }

  private async all(db: Db, text: string, values: unknown[] = []): Promise<Row[]> {
    return (await db.query<Row>(text, values)).rows;
  }

  private async audit(c: Db, by: Actor, action: string, subject: string, details: Record<string, unknown> = {}) {
    await c.query('INSERT INTO audit_events (at, actor, action, subject, details) VALUES ($1, $2, $3, $4, $5::jsonb)', [
      this.clock.now(),
      by.actor,
      action,
      subject,
      JSON.stringify(details),
    ]);
  }

  async migrate(): Promise<{ applied: number[] }> {
    return this.tx(async (c) => {
      // Several processes may start at once: one migrates, the others wait and then find nothing to do.
      await c.query("SELECT pg_advisory_xact_lock(hashtext('results-api:migrate:' || $1::text))", [this.schema ?? '']);
      if (this.schema) await c.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      const done = new Set((await this.all(c, 'SELECT version FROM schema_migrations')).map((r) => r.version as number));
      const applied: number[] = [];
      for (const m of postgresMigrations) {
        if (done.has(m.version)) continue;
        await c.query(m.sql);
        await c.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [m.version, this.clock.now()]);
        applied.push(m.version);
      }
      return { applied };
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async getOrSetSetting(key: string, value: string): Promise<string> {
    // Two statements, not one: a statement's snapshot would miss a row a concurrent caller just committed.
    const inserted = await this.one(
      this.pool,
      'INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING value',
      [key, value],
    );
    if (inserted) return inserted.value as string;
    return (await this.one(this.pool, 'SELECT value FROM settings WHERE key = $1', [key]))!.value as string;
  }

  // --- users -------------------------------------------------------------------------------

  async createUser(email: string, by: Actor): Promise<User> {
    return this.tx(async (c) => {
      const user: User = { id: randomUUID(), email: email.trim(), status: 'active', createdAt: this.clock.now() };
      const { rowCount } = await c.query(
        `INSERT INTO users (id, email, email_key, status, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (email_key) DO NOTHING`,
        [user.id, user.email, emailKey(email), user.status, user.createdAt],
      );
      if (rowCount === 0) throw new StoreConflictError('duplicate', `a user with email ${email} already exists`);
      await this.audit(c, by, 'user.create', user.email, { userId: user.id });
      return user;
    });
  }

  async findUserByEmail(email: string): Promise<User | null> {
    const r = await this.one(this.pool, 'SELECT * FROM users WHERE email_key = $1', [emailKey(email)]);
    return r ? userOf(r) : null;
  }

  async listUsers(): Promise<User[]> {
    return (await this.all(this.pool, 'SELECT * FROM users ORDER BY email_key')).map(userOf);
  }

  async setUserStatus(email: string, status: User['status'], by: Actor): Promise<User> {
    return this.tx(async (c) => {
      const r = await this.one(c, 'UPDATE users SET status = $2 WHERE email_key = $1 RETURNING *', [emailKey(email), status]);
      if (!r) throw new StoreConflictError('not_found', `no user with email ${email}`);
      await this.audit(c, by, status === 'disabled' ? 'user.disable' : 'user.enable', r.email as string);
      return userOf(r);
    });
  }

  // --- credentials -------------------------------------------------------------------------

  private async credential(db: Db, clientId: string): Promise<Credential | null> {
    const r = await this.one(db, `${CREDENTIAL_SELECT} WHERE c.client_id = $2`, [this.clock.now(), clientId]);
    return r ? credentialOf(r) : null;
  }

  async createCredential(
    input: { clientId: string; email: string; secretHash: string },
    by: Actor,
  ): Promise<Credential> {
    return this.tx(async (c) => {
      // Locking the user serializes concurrent issues for the same user.
      const user = await this.one(c, 'SELECT id, email FROM users WHERE email_key = $1 FOR UPDATE', [emailKey(input.email)]);
      if (!user) throw new StoreConflictError('not_found', `no user with email ${input.email}`);
      const active = await this.one(c, 'SELECT 1 FROM credentials WHERE user_id = $1 AND revoked_at IS NULL', [user.id]);
      const duplicate = new StoreConflictError(
        'duplicate',
        `${user.email as string} already holds an active credential; rotate or revoke it instead`,
      );
      if (active) throw duplicate;
      const now = this.clock.now();
      const { rowCount } = await c.query(
        'INSERT INTO credentials (client_id, user_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [input.clientId, user.id, now],
      );
      if (rowCount === 0) throw new StoreConflictError('duplicate', `client id ${input.clientId} is already in use`);
      await c.query('INSERT INTO credential_secrets (client_id, hash, created_at) VALUES ($1, $2, $3)', [
        input.clientId,
        input.secretHash,
        now,
      ]);
      await this.audit(c, by, 'credential.issue', input.clientId, { email: user.email });
      return (await this.credential(c, input.clientId))!;
    });
  }

  async addCredentialSecret(
    input: { clientId: string; secretHash: string; retireOthersAt: number },
    by: Actor,
  ): Promise<Credential> {
    return this.tx(async (c) => {
      const current = await this.one(c, 'SELECT revoked_at FROM credentials WHERE client_id = $1 FOR UPDATE', [input.clientId]);
      if (!current) throw new StoreConflictError('not_found', `no credential with client id ${input.clientId}`);
      if (current.revoked_at !== null) throw new StoreConflictError('not_found', `credential ${input.clientId} is revoked`);
      const now = this.clock.now();
      // At most two secrets work at once: the new one and the newest previous one (in grace),
      // which is the one without an expiry. Expiries only ever move earlier.
      await c.query(
        `UPDATE credential_secrets s SET expires_at = LEAST(COALESCE(s.expires_at, w.expires_at), w.expires_at)
           FROM (SELECT hash, CASE WHEN row_number() OVER (ORDER BY expires_at IS NULL DESC, created_at DESC) = 1
                                   THEN $3::bigint ELSE $2::bigint END AS expires_at
                   FROM credential_secrets
                  WHERE client_id = $1 AND (expires_at IS NULL OR expires_at > $2::bigint)) w
          WHERE s.client_id = $1 AND s.hash = w.hash`,
        [input.clientId, now, Math.max(now, input.retireOthersAt)],
      );
      await c.query('INSERT INTO credential_secrets (client_id, hash, created_at) VALUES ($1, $2, $3)', [
        input.clientId,
        input.secretHash,
        now,
      ]);
      await this.audit(c, by, 'credential.rotate', input.clientId, { previousSecretExpiresAt: input.retireOthersAt });
      return (await this.credential(c, input.clientId))!;
    });
  }

  async retirePreviousSecrets(clientId: string, by: Actor): Promise<{ credential: Credential; retired: number }> {
    return this.tx(async (c) => {
      const current = await this.one(c, 'SELECT revoked_at FROM credentials WHERE client_id = $1 FOR UPDATE', [clientId]);
      if (!current) throw new StoreConflictError('not_found', `no credential with client id ${clientId}`);
      if (current.revoked_at !== null) throw new StoreConflictError('not_found', `credential ${clientId} is revoked`);
      // Same order as addCredentialSecret: the newest is the working secret without an expiry.
      const { rowCount } = await c.query(
        `UPDATE credential_secrets s SET expires_at = $2
           FROM (SELECT hash, row_number() OVER (ORDER BY expires_at IS NULL DESC, created_at DESC) AS n
                   FROM credential_secrets
                  WHERE client_id = $1 AND (expires_at IS NULL OR expires_at > $2::bigint)) w
          WHERE s.client_id = $1 AND s.hash = w.hash AND w.n > 1`,
        [clientId, this.clock.now()],
      );
      const retired = rowCount ?? 0;
      if (retired > 0) await this.audit(c, by, 'credential.retire_previous', clientId, { retired });
      return { credential: (await this.credential(c, clientId))!, retired };
    });
  }

  async revokeCredential(clientId: string, by: Actor): Promise<Credential> {
    return this.tx(async (c) => {
      const current = await this.one(
        c,
        'SELECT c.revoked_at, u.email FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.client_id = $1 FOR UPDATE OF c',
        [clientId],
      );
      if (!current) throw new StoreConflictError('not_found', `no credential with client id ${clientId}`);
      if (current.revoked_at === null) {
        await c.query('UPDATE credentials SET revoked_at = $2 WHERE client_id = $1', [clientId, this.clock.now()]);
        await this.audit(c, by, 'credential.revoke', clientId, { email: current.email });
      }
      return (await this.credential(c, clientId))!;
    });
  }

  async listCredentials(): Promise<Credential[]> {
    const rows = await this.all(this.pool, `${CREDENTIAL_SELECT} ORDER BY c.created_at, c.client_id`, [this.clock.now()]);
    return rows.map(credentialOf);
  }

  async findClientForAuth(clientId: string): Promise<ClientForAuth | null> {
    const r = (await this.pool.query<Row>({ ...SQL.findClientForAuth, values: [clientId] })).rows[0];
    if (!r) return null;
    return {
      clientId: r.client_id as string,
      userId: r.user_id as string,
      userActive: r.status === 'active',
      revoked: r.revoked_at !== null,
      lastUsedAt: r.last_used_at as number | null,
      secrets: r.secrets as ClientForAuth['secrets'],
    };
  }

  async recordClientUse(clientId: string, at: number): Promise<void> {
    await this.pool.query({ ...SQL.recordClientUse, values: [clientId, at] });
  }

  async findPrincipal(clientId: string): Promise<Principal | null> {
    const r = (await this.pool.query<Row>({ ...SQL.findPrincipal, values: [clientId] })).rows[0];
    return r ? { clientId: r.client_id as string, userId: r.user_id as string, email: r.email as string } : null;
  }

  // --- workspaces and members --------------------------------------------------------------

  async createWorkspace(input: { id: string; name: string }, by: Actor): Promise<Workspace> {
    return this.tx(async (c) => {
      const ws: Workspace = { ...input, createdAt: this.clock.now() };
      const { rowCount } = await c.query(
        'INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
        [ws.id, ws.name, ws.createdAt],
      );
      if (rowCount === 0) throw new StoreConflictError('duplicate', `workspace ${input.id} already exists`);
      await this.audit(c, by, 'workspace.create', ws.id, { name: ws.name });
      return ws;
    });
  }

  async listWorkspaces(): Promise<Workspace[]> {
    return (await this.all(this.pool, 'SELECT * FROM workspaces ORDER BY created_at, id')).map(workspaceOf);
  }

  async getWorkspace(id: string): Promise<Workspace | null> {
    const r = await this.one(this.pool, 'SELECT * FROM workspaces WHERE id = $1', [id]);
    return r ? workspaceOf(r) : null;
  }

  async listWorkspacesForMember(email: string): Promise<Workspace[]> {
    const rows = await this.all(
      this.pool,
      `SELECT w.* FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
        WHERE m.email_key = $1 ORDER BY w.created_at, w.id`,
      [emailKey(email)],
    );
    return rows.map(workspaceOf);
  }

  // Workspaces are never deleted, so checking existence needs no lock.
  private async requireWorkspace(db: Db, id: string): Promise<void> {
    if (!(await this.one(db, 'SELECT 1 FROM workspaces WHERE id = $1', [id]))) {
      throw new StoreConflictError('not_found', `no workspace with id ${id}`);
    }
  }

  async addMember(workspaceId: string, email: string, by: Actor): Promise<Member> {
    return this.tx(async (c) => {
      await this.requireWorkspace(c, workspaceId);
      const member: Member = { workspaceId, email: email.trim(), addedAt: this.clock.now() };
      const { rowCount } = await c.query(
        `INSERT INTO memberships (workspace_id, email_key, email, added_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (workspace_id, email_key) DO NOTHING`,
        [workspaceId, emailKey(email), member.email, member.addedAt],
      );
      if (rowCount === 0) throw new StoreConflictError('duplicate', `${email} is already a member of workspace ${workspaceId}`);
      await this.audit(c, by, 'member.add', workspaceId, { email: member.email });
      return member;
    });
  }

  async removeMember(workspaceId: string, email: string, by: Actor): Promise<void> {
    await this.tx(async (c) => {
      await this.requireWorkspace(c, workspaceId);
      const { rowCount } = await c.query('DELETE FROM memberships WHERE workspace_id = $1 AND email_key = $2', [
        workspaceId,
        emailKey(email),
      ]);
      if (rowCount === 0) throw new StoreConflictError('not_found', `${email} is not a member of workspace ${workspaceId}`);
      await this.audit(c, by, 'member.remove', workspaceId, { email: email.trim() });
    });
  }

  async listMembers(workspaceId: string): Promise<Member[]> {
    await this.requireWorkspace(this.pool, workspaceId);
    const rows = await this.all(
      this.pool,
      'SELECT workspace_id, email, added_at FROM memberships WHERE workspace_id = $1 ORDER BY email_key',
      [workspaceId],
    );
    return rows.map((r) => ({ workspaceId: r.workspace_id as string, email: r.email as string, addedAt: r.added_at as number }));
  }

  async isMember(workspaceId: string, email: string): Promise<boolean> {
    return !!(await this.one(this.pool, 'SELECT 1 FROM memberships WHERE workspace_id = $1 AND email_key = $2', [
      workspaceId,
      emailKey(email),
    ]));
  }

  // --- tests and sessions ------------------------------------------------------------------

  async createTest(
    input: { id: string; workspaceId: string; title: string; productType: string },
    by: Actor,
  ): Promise<Test> {
    return this.tx(async (c) => {
      await this.requireWorkspace(c, input.workspaceId);
      const test: Test = { ...input, createdAt: this.clock.now(), sessionCount: 0 };
      const { rowCount } = await c.query(
        `INSERT INTO tests (id, workspace_id, title, product_type, created_at, session_count)
         VALUES ($1, $2, $3, $4, $5, 0) ON CONFLICT (id) DO NOTHING`,
        [test.id, test.workspaceId, test.title, test.productType, test.createdAt],
      );
      if (rowCount === 0) throw new StoreConflictError('duplicate', `test ${input.id} already exists`);
      await this.audit(c, by, 'test.create', test.id, { workspaceId: test.workspaceId, title: test.title });
      return test;
    });
  }

  async getTest(id: string): Promise<Test | null> {
    const r = await this.one(this.pool, 'SELECT * FROM tests WHERE id = $1', [id]);
    return r ? testOf(r) : null;
  }

  async listTests(workspaceId: string): Promise<Test[]> {
    await this.requireWorkspace(this.pool, workspaceId);
    const rows = await this.all(this.pool, 'SELECT * FROM tests WHERE workspace_id = $1 ORDER BY created_at, id', [workspaceId]);
    return rows.map(testOf);
  }

  async findVisibleTest(testId: string, email: string): Promise<Test | null> {
    const r = (await this.pool.query<Row>({ ...SQL.findVisibleTest, values: [testId, emailKey(email)] })).rows[0];
    return r ? testOf(r) : null;
  }

  async importSessions(testId: string, sessions: SessionInput[], by: Actor): Promise<ImportResult> {
    return this.importSessionStream(testId, [sessions], by);
  }

  /** One transaction on one pooled connection for the whole stream; each batch is upserted as it arrives. */
  async importSessionStream(
    testId: string,
    batches: AsyncIterable<readonly SessionInput[]> | Iterable<readonly SessionInput[]>,
    by: Actor,
  ): Promise<ImportResult> {
    return this.tx(async (c) => {
      // Locking the test serializes imports into it, which keeps session_count exact.
      if (!(await this.one(c, 'SELECT 1 FROM tests WHERE id = $1 FOR UPDATE', [testId]))) {
        throw new StoreConflictError('not_found', `no test with id ${testId}`);
      }
      const result: ImportResult = { inserted: 0, updated: 0, unchanged: 0 };
      for await (const batch of batches) {
        for (const chunk of chunks(batch)) {
          const { rows } = await c.query<Row>({
            ...SQL.importChunk,
            values: [
              testId,
              chunk.map((s) => s.sessionId),
              chunk.map((s) => s.audienceId),
              chunk.map((s) => s.status),
              chunk.map((s) => s.startTime),
              chunk.map((s) => s.finishTime),
            ],
          });
          const foreign = new Set(rows.filter((r) => r.test_id !== testId).map((r) => r.session_id as string));
          if (foreign.size > 0) {
            const first = chunk.find((s) => foreign.has(s.sessionId))!.sessionId;
            throw new StoreConflictError('foreign_session', `session ${first} belongs to another test`);
          }
          const inserted = rows.filter((r) => r.inserted === true).length;
          result.inserted += inserted;
          result.updated += rows.length - inserted;
          result.unchanged += chunk.length - rows.length;
        }
      }
      if (result.inserted > 0) {
        await c.query('UPDATE tests SET session_count = session_count + $2 WHERE id = $1', [testId, result.inserted]);
      }
      await this.audit(c, by, 'sessions.import', testId, { ...result });
      return result;
    });
  }

  async listSessions(testId: string, offset: number, limit: number, after?: SessionKey): Promise<Session[]> {
    const { rows } = await this.pool.query<Row>(
      after
        ? { ...SQL.listSessionsAfter, values: [testId, limit, offset, after.startTime, after.sessionId] }
        : { ...SQL.listSessions, values: [testId, limit, offset] },
    );
    return rows.map((r) => ({
      sessionId: r.session_id as string,
      testId,
      audienceId: r.audience_id as string | null,
      status: r.status as string,
      startTime: r.start_time as number,
      finishTime: r.finish_time as number | null,
    }));
  }

  async listSessionKeys(testId: string, every: number, upTo: number): Promise<SessionKey[]> {
    const { rows } = await this.pool.query<Row>({ ...SQL.listSessionKeys, values: [testId, every, upTo] });
    return rows.map((r) => ({ startTime: r.start_time as number, sessionId: r.session_id as string }));
  }

  // --- signing keys, revocations, audit -----------------------------------------------------

  async listSigningKeys(): Promise<SigningKey[]> {
    const rows = await this.all(this.pool, 'SELECT * FROM signing_keys ORDER BY created_at DESC, kid');
    return rows.map((r) => ({
      kid: r.kid as string,
      alg: 'RS256',
      privateKeyPem: r.private_key_pem as string,
      publicJwk: r.public_jwk as Record<string, unknown>,
      createdAt: r.created_at as number,
      retiredAt: r.retired_at as number | null,
    }));
  }

  async addSigningKey(key: Omit<SigningKey, 'retiredAt'>, by: Actor): Promise<void> {
    await this.tx(async (c) => {
      // Rotations take turns (readers are not blocked), so two racing rotations cannot both
      // leave their key active.
      await c.query('LOCK TABLE signing_keys IN SHARE ROW EXCLUSIVE MODE');
      await c.query('UPDATE signing_keys SET retired_at = $1 WHERE retired_at IS NULL', [key.createdAt]);
      await c.query(
        `INSERT INTO signing_keys (kid, alg, private_key_pem, public_jwk, created_at) VALUES ($1, $2, $3, $4::jsonb, $5)`,
        [key.kid, key.alg, key.privateKeyPem, JSON.stringify(key.publicJwk), key.createdAt],
      );
      await this.audit(c, by, 'key.add', key.kid);
    });
  }

  async revokeAccessToken(jti: string, expiresAt: number, by: Actor): Promise<void> {
    await this.tx(async (c) => {
      await c.query('DELETE FROM revoked_tokens WHERE expires_at <= $1', [this.clock.now()]);
      const { rowCount } = await c.query(
        'INSERT INTO revoked_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING',
        [jti, expiresAt],
      );
      if (rowCount) await this.audit(c, by, 'token.revoke', jti);
    });
  }

  async isAccessTokenRevoked(jti: string, now: number): Promise<boolean> {
    return (await this.pool.query({ ...SQL.isAccessTokenRevoked, values: [jti, now] })).rowCount !== 0;
  }

  async appendAudit(event: AuditInput): Promise<void> {
    await this.audit(this.pool, event, event.action, event.subject, event.details);
  }

  async listAudit(options: { limit?: number } = {}): Promise<AuditEvent[]> {
    const rows = await this.all(
      this.pool,
      'SELECT * FROM (SELECT * FROM audit_events ORDER BY id DESC LIMIT $1) e ORDER BY id',
      [options.limit ?? 1000],
    );
    return rows.map((r) => ({
      id: r.id as number,
      at: r.at as number,
      actor: r.actor as string,
      action: r.action as string,
      subject: r.subject as string,
      details: r.details as Record<string, unknown>,
    }));
  }
}

/**
 * Splits a batch into chunks of at most IMPORT_CHUNK rows in which no sessionId repeats (one
 * INSERT ... ON CONFLICT cannot touch a row twice). Order is kept, so a repeated session is
 * applied in sequence and the last one wins, as in a row-by-row import.
 */
function* chunks(sessions: readonly SessionInput[]): Generator<SessionInput[]> {
  let chunk: SessionInput[] = [];
  let ids = new Set<string>();
  for (const s of sessions) {
    if (chunk.length === IMPORT_CHUNK || ids.has(s.sessionId)) {
      yield chunk;
      chunk = [];
      ids = new Set();
    }
    chunk.push(s);
    ids.add(s.sessionId);
  }
  if (chunk.length > 0) yield chunk;
}
