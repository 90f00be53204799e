import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { isoTime } from '../iso-time.js';
import { audit } from './audit-log.js';
import { conflict } from './conflicts.js';
import type { Database, Row, Transaction } from './database.js';
import { emailKey } from './email.js';
import { credentialOf, userOf } from './rows.js';
import type { Actor, ClientForAuth, Credential, CredentialSecret, Principal, User } from './store.js';

const ACCESS = { topic: 'access' } as const;

const USER_BY_EMAIL = 'SELECT id, email, status, created_at FROM users WHERE email_key = @key';

const CREDENTIAL = `
  SELECT c.client_id, c.user_id, u.email, c.created_at, c.last_used_at, c.revoked_at,
         (SELECT COUNT(*) FROM credential_secrets s
           WHERE s.client_id = c.client_id AND (s.expires_at IS NULL OR s.expires_at > @now)) AS active_secrets
    FROM credentials c JOIN users u ON u.id = c.user_id`;

/** Working secrets, the current one first: it has no expiry (created_at ties when rotating twice in a millisecond). */
const LIVE_SECRETS = `
  SELECT hash, created_at, expires_at FROM credential_secrets
   WHERE client_id = @clientId AND (expires_at IS NULL OR expires_at > @now)
   ORDER BY expires_at IS NULL DESC, created_at DESC`;

const ADD_SECRET = 'INSERT INTO credential_secrets (client_id, hash, created_at) VALUES (@clientId, @hash, @now)';
const EXPIRE_SECRET = 'UPDATE credential_secrets SET expires_at = @expiresAt WHERE client_id = @clientId AND hash = @hash';

/** API users and the client credentials they hold. */
export class CredentialRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  createUser(email: string, by: Actor): Promise<User> {
    return this.db.write(ACCESS, async (tx) => {
      const user: User = { id: randomUUID(), email: email.trim(), status: 'active', createdAt: this.clock.now() };
      const inserted = await tx.run(
        `INSERT INTO users (id, email, email_key, status, created_at) VALUES (@id, @email, @key, @status, @createdAt)
         ON CONFLICT (email_key) DO NOTHING`,
        { ...user, key: emailKey(email) },
      );
      if (inserted === 0) throw conflict.userExists(email);
      await audit(tx, this.clock, by, 'user.create', user.email, { userId: user.id });
      return user;
    });
  }

  async findUserByEmail(email: string): Promise<User | null> {
    const r = await this.db.one(USER_BY_EMAIL, { key: emailKey(email) });
    return r ? userOf(r) : null;
  }

  async listUsers(): Promise<User[]> {
    return (await this.db.all('SELECT id, email, status, created_at FROM users ORDER BY email_key')).map(userOf);
  }

  setUserStatus(email: string, status: User['status'], by: Actor): Promise<User> {
    return this.db.write(ACCESS, async (tx) => {
      const r = await tx.one(
        'UPDATE users SET status = @status WHERE email_key = @key RETURNING id, email, status, created_at',
        { key: emailKey(email), status },
      );
      if (!r) throw conflict.noUser(email);
      await audit(tx, this.clock, by, status === 'disabled' ? 'user.disable' : 'user.enable', r.email as string);
      return userOf(r);
    });
  }

  /** Creates a credential with its first secret. Fails if the user already holds an active one. */
  createCredential(input: { clientId: string; email: string; secretHash: string }, by: Actor): Promise<Credential> {
    return this.db.write(ACCESS, async (tx) => {
      // Locking the user serializes concurrent issues for the same user.
      const user = await tx.one(`${USER_BY_EMAIL} FOR UPDATE`, { key: emailKey(input.email) });
      if (!user) throw conflict.noUser(input.email);
      if (await tx.one('SELECT 1 FROM credentials WHERE user_id = @userId AND revoked_at IS NULL', { userId: user.id })) {
        throw conflict.credentialHeld(user.email as string);
      }
      const now = this.clock.now();
      const inserted = await tx.run(
        'INSERT INTO credentials (client_id, user_id, created_at) VALUES (@clientId, @userId, @now) ON CONFLICT DO NOTHING',
        { clientId: input.clientId, userId: user.id, now },
      );
      if (inserted === 0) throw conflict.clientIdTaken(input.clientId);
      await tx.run(ADD_SECRET, { clientId: input.clientId, hash: input.secretHash, now });
      await audit(tx, this.clock, by, 'credential.issue', input.clientId, { email: user.email });
      return this.credential(tx, input.clientId);
    });
  }

  /**
   * Adds a secret; the previous one keeps working until `retireOthersAt` (a rotation's grace
   * period). At most two secrets work at once, and a promised grace period is never cut
   * short: rotating again while a previous secret is in grace is refused, unless the
   * rotation ends every previous secret now (`retireOthersAt` not in the future).
   */
  addCredentialSecret(input: { clientId: string; secretHash: string; retireOthersAt: number }, by: Actor): Promise<Credential> {
    return this.db.write(ACCESS, async (tx) => {
      await this.requireUsable(tx, input.clientId);
      const now = this.clock.now();
      const [current, ...previous] = await this.liveSecrets(tx, input.clientId, now);
      const inGrace = previous[0];
      if (current && inGrace && input.retireOthersAt > now) {
        throw conflict.secretInGrace(input.clientId, current, { createdAt: inGrace.createdAt, expiresAt: inGrace.expiresAt! });
      }
      const expiresAt = Math.max(now, input.retireOthersAt);
      if (current) await tx.run(EXPIRE_SECRET, { clientId: input.clientId, hash: current.hash, expiresAt });
      for (const s of previous) await tx.run(EXPIRE_SECRET, { clientId: input.clientId, hash: s.hash, expiresAt: now });
      await tx.run(ADD_SECRET, { clientId: input.clientId, hash: input.secretHash, now });
      await audit(tx, this.clock, by, 'credential.rotate', input.clientId, { previousSecretExpiresAt: isoTime(expiresAt) });
      return this.credential(tx, input.clientId);
    });
  }

  /**
   * Ends a rotation's grace period now: every secret but the newest stops working. Retiring
   * when nothing is in grace changes nothing (and audits nothing).
   */
  retirePreviousSecrets(clientId: string, by: Actor): Promise<{ credential: Credential; retired: number }> {
    return this.db.write(ACCESS, async (tx) => {
      await this.requireUsable(tx, clientId);
      const now = this.clock.now();
      const previous = (await this.liveSecrets(tx, clientId, now)).slice(1);
      for (const s of previous) await tx.run(EXPIRE_SECRET, { clientId, hash: s.hash, expiresAt: now });
      if (previous.length > 0) await audit(tx, this.clock, by, 'credential.retire_previous', clientId, { retired: previous.length });
      return { credential: await this.credential(tx, clientId), retired: previous.length };
    });
  }

  /** Revoking a revoked credential changes nothing and audits nothing. */
  revokeCredential(clientId: string, by: Actor): Promise<Credential> {
    return this.db.write(ACCESS, async (tx) => {
      const current = await tx.one('SELECT revoked_at FROM credentials WHERE client_id = @clientId FOR UPDATE', { clientId });
      if (!current) throw conflict.noCredential(clientId);
      if (current.revoked_at === null) {
        await tx.run('UPDATE credentials SET revoked_at = @now WHERE client_id = @clientId', { clientId, now: this.clock.now() });
        const credential = await this.credential(tx, clientId);
        await audit(tx, this.clock, by, 'credential.revoke', clientId, { email: credential.email });
        return credential;
      }
      return this.credential(tx, clientId);
    });
  }

  async listCredentials(): Promise<Credential[]> {
    const rows = await this.db.all(`${CREDENTIAL} ORDER BY c.created_at, c.client_id`, { now: this.clock.now() });
    return rows.map(credentialOf);
  }

  /** What client authentication needs, in one read (a row per secret). */
  async findClientForAuth(clientId: string): Promise<ClientForAuth | null> {
    const rows = await this.db.all(
      `SELECT c.user_id, c.revoked_at, c.last_used_at, u.status, s.hash, s.created_at, s.expires_at
         FROM credentials c JOIN users u ON u.id = c.user_id
         LEFT JOIN credential_secrets s ON s.client_id = c.client_id
        WHERE c.client_id = @clientId`,
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
      secrets: rows.filter((s) => s.hash !== null).map(secretOf),
    };
  }

  /** Nothing cached depends on when a client was last seen. */
  async recordClientUse(clientId: string, at: number): Promise<void> {
    await this.db.write(null, (tx) => tx.run('UPDATE credentials SET last_used_at = @at WHERE client_id = @clientId', { clientId, at }));
  }

  /** Null unless the credential exists, is not revoked and its user is active. */
  async findPrincipal(clientId: string): Promise<Principal | null> {
    const r = await this.db.one(
      `SELECT u.id AS user_id, u.email FROM credentials c JOIN users u ON u.id = c.user_id
        WHERE c.client_id = @clientId AND c.revoked_at IS NULL AND u.status = 'active'`,
      { clientId },
    );
    return r ? { clientId, userId: r.user_id as string, email: r.email as string } : null;
  }

  private async credential(tx: Transaction, clientId: string): Promise<Credential> {
    return credentialOf((await tx.one(`${CREDENTIAL} WHERE c.client_id = @clientId`, { clientId, now: this.clock.now() }))!);
  }

  /** Refuses an unknown or revoked credential, and locks it for the rest of the transaction. */
  private async requireUsable(tx: Transaction, clientId: string): Promise<void> {
    const r = await tx.one('SELECT revoked_at FROM credentials WHERE client_id = @clientId FOR UPDATE', { clientId });
    if (!r) throw conflict.noCredential(clientId);
    if (r.revoked_at !== null) throw conflict.credentialRevoked(clientId);
  }

  private async liveSecrets(tx: Transaction, clientId: string, now: number): Promise<CredentialSecret[]> {
    return (await tx.all(LIVE_SECRETS, { clientId, now })).map(secretOf);
  }
}

const secretOf = (r: Row): CredentialSecret => ({
  hash: r.hash as string,
  createdAt: r.created_at as number,
  expiresAt: (r.expires_at as number | null) ?? null,
});
