import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import { conflict } from './conflicts.js';
import type { Database, Row } from './database.js';
import { emailKey } from './email.js';
import { userOf } from './rows.js';
import type { Actor, User } from './store.js';

/** An API user as sign-in sees them. Never leaves the server. */
export interface UserForSignIn extends User {
  passwordHash: string | null;
  totpSecret: string | null;
}

/** A signed-in browser: the user and the token every form of the session must echo. */
export interface UserSession {
  user: User;
  csrfToken: string;
  expiresAt: number;
}

const USER_COLUMNS = 'u.id, u.email, u.status, u.created_at, u.password_hash, u.totp_secret';

const forSignInOf = (r: Row): UserForSignIn => ({
  ...userOf(r),
  passwordHash: (r.password_hash as string | null) ?? null,
  totpSecret: (r.totp_secret as string | null) ?? null,
});

/** How the audit log names an API user acting in their browser. */
export const userActor = (user: Pick<User, 'email'>): Actor => ({ actor: `user:${user.email}` });

/**
 * API users' sign-in: passwords, TOTP, one-time setup links and browser sessions. Sessions are
 * read from the database on every page, never cached, so these writes announce nothing; what
 * tokens depend on (a user's status, an app's grants) lives in CredentialRepository and
 * AppRepository.
 */
export class UserAccountRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Replaces the user's setup link (an invitation, or a password reset): the earlier link stops
   * working; the password, if any, stays until the new link is used. With `create`, a user
   * that does not exist yet is created (an invitation); otherwise it is refused.
   */
  issueSetupLink(email: string, setupTokenHash: string, setupExpiresAt: number, create: boolean, by: Actor): Promise<{ user: User; created: boolean }> {
    return this.db.write(create ? { topic: 'access' } : null, async (tx) => {
      const key = emailKey(email);
      let created = false;
      if (create) {
        created =
          (await tx.run(
            `INSERT INTO users (id, email, email_key, status, created_at) VALUES (@id, @email, @key, 'active', @now) ON CONFLICT (email_key) DO NOTHING`,
            { id: randomUUID(), email: email.trim(), key, now: this.clock.now() },
          )) > 0;
        if (created) await audit(tx, this.clock, by, 'user.create', email.trim(), {});
      }
      const r = await tx.one('UPDATE users SET setup_token_hash = @setupTokenHash, setup_expires_at = @setupExpiresAt WHERE email_key = @key RETURNING id, email, status, created_at', {
        key,
        setupTokenHash,
        setupExpiresAt,
      });
      if (!r) throw conflict.noUser(email);
      const user = userOf(r);
      await audit(tx, this.clock, by, 'user.setup_link', user.email, {});
      return { user, created };
    });
  }

  /**
   * Uses a setup link once: sets the password and forgets the link, if it exists and has not
   * expired. Every session of the user ends (a reset password signs out everywhere). Null: no such link.
   */
  completeSetup(setupTokenHash: string, passwordHash: string): Promise<User | null> {
    return this.db.write(null, async (tx) => {
      const r = await tx.one('SELECT id, email, status, created_at, setup_expires_at FROM users WHERE setup_token_hash = @setupTokenHash', { setupTokenHash });
      if (!r || (r.setup_expires_at as number) <= this.clock.now()) return null;
      await tx.run('UPDATE users SET password_hash = @passwordHash, setup_token_hash = NULL, setup_expires_at = NULL WHERE id = @id', { id: r.id, passwordHash });
      await tx.run('DELETE FROM user_sessions WHERE user_id = @id', { id: r.id });
      const user = userOf(r);
      await audit(tx, this.clock, userActor(user), 'user.password_set', user.email, { via: 'setup link' });
      return user;
    });
  }

  /** Sets a user's password directly (`users set-password`); every session of the user ends. */
  setPassword(email: string, passwordHash: string, by: Actor): Promise<User> {
    return this.db.write(null, async (tx) => {
      const r = await tx.one(
        'UPDATE users SET password_hash = @passwordHash, setup_token_hash = NULL, setup_expires_at = NULL WHERE email_key = @key RETURNING id, email, status, created_at',
        { key: emailKey(email), passwordHash },
      );
      if (!r) throw conflict.noUser(email);
      await tx.run('DELETE FROM user_sessions WHERE user_id = @id', { id: r.id });
      const user = userOf(r);
      await audit(tx, this.clock, by, 'user.password_set', user.email, {});
      return user;
    });
  }

  async findForSignIn(email: string): Promise<UserForSignIn | null> {
    const r = await this.db.one(`SELECT ${USER_COLUMNS} FROM users u WHERE u.email_key = @key`, { key: emailKey(email) });
    return r ? forSignInOf(r) : null;
  }

  /** Starts a session: only the hash of its cookie value is stored. The user's expired sessions go. */
  createSession(input: { idHash: string; userId: string; csrfToken: string; expiresAt: number }, user: User): Promise<void> {
    return this.db.write(null, async (tx) => {
      const now = this.clock.now();
      await tx.run('DELETE FROM user_sessions WHERE user_id = @userId AND expires_at <= @now', { userId: input.userId, now });
      await tx.run(
        'INSERT INTO user_sessions (id_hash, user_id, csrf_token, created_at, expires_at) VALUES (@idHash, @userId, @csrfToken, @now, @expiresAt)',
        { ...input, now },
      );
      await audit(tx, this.clock, userActor(user), 'user.sign_in', user.email, {});
    });
  }

  /** The live session whose cookie hashes to `idHash`, of an active user with a password, or null. */
  async findSession(idHash: string): Promise<UserSession | null> {
    const r = await this.db.one(
      `SELECT ${USER_COLUMNS}, s.csrf_token, s.expires_at FROM user_sessions s JOIN users u ON u.id = s.user_id
        WHERE s.id_hash = @idHash AND s.expires_at > @now AND u.status = 'active' AND u.password_hash IS NOT NULL`,
      { idHash, now: this.clock.now() },
    );
    return r ? { user: userOf(r), csrfToken: r.csrf_token as string, expiresAt: r.expires_at as number } : null;
  }

  endSession(idHash: string, user: User): Promise<void> {
    return this.db.write(null, async (tx) => {
      const deleted = await tx.run('DELETE FROM user_sessions WHERE id_hash = @idHash', { idHash });
      if (deleted > 0) await audit(tx, this.clock, userActor(user), 'user.sign_out', user.email, {});
    });
  }

  /** Remembers the TOTP time step just accepted, so the same code cannot be used twice (RFC 6238 §5.2). */
  recordTotpStep(userId: string, step: number): Promise<boolean> {
    return this.db.write(null, async (tx) => {
      const updated = await tx.run('UPDATE users SET totp_last_step = @step WHERE id = @userId AND (totp_last_step IS NULL OR totp_last_step < @step)', { userId, step });
      return updated > 0;
    });
  }

  /** Keeps a TOTP secret waiting for its first code (enrolment), replacing any earlier one. */
  setPendingTotp(userId: string, secret: string): Promise<void> {
    return this.db.write(null, async (tx) => {
      await tx.run('UPDATE users SET totp_pending_secret = @secret WHERE id = @userId', { userId, secret });
    });
  }

  async pendingTotp(userId: string): Promise<string | null> {
    const r = await this.db.one('SELECT totp_pending_secret FROM users WHERE id = @userId', { userId });
    return (r?.totp_pending_secret as string | null | undefined) ?? null;
  }

  /** Makes the pending secret the user's second factor, if it is still `secret`. */
  enableTotp(user: User, secret: string, step: number): Promise<boolean> {
    return this.db.write(null, async (tx) => {
      const updated = await tx.run(
        `UPDATE users SET totp_secret = totp_pending_secret, totp_pending_secret = NULL, totp_last_step = @step
          WHERE id = @userId AND totp_pending_secret = @secret`,
        { userId: user.id, secret, step },
      );
      if (updated > 0) await audit(tx, this.clock, userActor(user), 'user.totp_enable', user.email, {});
      return updated > 0;
    });
  }

  /** Turns a user's second factor off (a lost phone); they enrol again after signing in. */
  resetTotp(email: string, by: Actor): Promise<User> {
    return this.db.write(null, async (tx) => {
      const r = await tx.one(
        'UPDATE users SET totp_secret = NULL, totp_pending_secret = NULL, totp_last_step = NULL WHERE email_key = @key RETURNING id, email, status, created_at',
        { key: emailKey(email) },
      );
      if (!r) throw conflict.noUser(email);
      const user = userOf(r);
      await audit(tx, this.clock, by, 'user.totp_reset', user.email, {});
      return user;
    });
  }
}
