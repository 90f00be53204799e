import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import { StoreConflictError } from './conflicts.js';
import type { Database, Reader, Row, Transaction } from './database.js';
import { GroupCommit } from './group-commit.js';
import type { Actor, Principal } from './store.js';

export type ClientType = 'confidential' | 'public';
/** How an app came to be known: support staff, dynamic registration (RFC 7591), a client ID metadata document. */
export type AppOrigin = 'registered' | 'dynamic' | 'metadata';

/** A partner app that users may authorize. */
export interface App {
  clientId: string;
  name: string;
  clientType: ClientType;
  origin: AppOrigin;
  redirectUris: string[];
  /** The scopes it may ask a user for. */
  scopes: string[];
  createdAt: number;
  /** When its client ID metadata document was last read (origin `metadata`). */
  fetchedAt: number | null;
  revokedAt: number | null;
}

/** What the token endpoint checks. Never leaves the server. */
export interface AppForAuth extends App {
  secretHash: string | null;
}

export interface NewApp {
  clientId: string;
  name: string;
  clientType: ClientType;
  origin: AppOrigin;
  redirectUris: string[];
  scopes: string[];
  secretHash: string | null;
}

/** A user's approval of an app: the family of one authorization's tokens. */
export interface Grant {
  id: string;
  userId: string;
  clientId: string;
  scopes: string[];
  resource: string | null;
}

/** An app as its user sees it on the page of approved apps. */
export interface ApprovedApp {
  clientId: string;
  name: string;
  scopes: string[];
  approvedAt: number;
  lastUsedAt: number | null;
}

/** A usable refresh token, as its app may learn about it (RFC 7662). */
export interface LiveRefreshToken {
  userId: string;
  email: string;
  scopes: string[];
  issuedAt: number;
  expiresAt: number;
}

export interface NewAuthorizationCode {
  codeHash: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  resource: string | null;
  expiresAt: number;
}

export interface AuthorizationCode extends NewAuthorizationCode {
  usedAt: number | null;
  grantId: string | null;
}

export type CodeExchange =
  | { ok: true; grant: Grant }
  | { ok: false; reason: 'unknown' | 'expired' | 'refused'; detail?: string }
  /** Used before: what the first use issued must be revoked (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3). */
  | { ok: false; reason: 'replayed'; grantId: string | null };

export type RefreshRotation =
  | { ok: true; grant: Grant }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' }
  /** The caller's check refused the request: nothing was rotated. */
  | { ok: false; reason: 'refused'; detail: string; grant: Grant }
  /** Used before: the whole family is to be revoked. */
  | { ok: false; reason: 'reused'; grantId: string };

const ACCESS = { topic: 'access' } as const;

const GRANT_LAST_USED_RESOLUTION_MS = 60_000;

export const appConflict = {
  exists: (clientId: string) => new StoreConflictError('duplicate', `an app with client id ${clientId} already exists`),
  noApp: (clientId: string) => new StoreConflictError('not_found', `no app with client id ${clientId}`),
};

const APP_COLUMNS = 'a.client_id, a.name, a.client_type, a.origin, a.redirect_uris, a.scopes, a.secret_hash, a.created_at, a.fetched_at, a.revoked_at';

const appOf = (r: Row): AppForAuth => ({
  clientId: r.client_id as string,
  name: r.name as string,
  clientType: r.client_type as ClientType,
  origin: r.origin as AppOrigin,
  redirectUris: JSON.parse(r.redirect_uris as string) as string[],
  scopes: (r.scopes as string).split(' ').filter((s) => s !== ''),
  secretHash: (r.secret_hash as string | null) ?? null,
  createdAt: r.created_at as number,
  fetchedAt: (r.fetched_at as number | null) ?? null,
  revokedAt: (r.revoked_at as number | null) ?? null,
});

export const withoutSecret = ({ secretHash: _secret, ...app }: AppForAuth): App => app;

const grantOf = (r: Row): Grant => ({
  id: r.id as string,
  userId: r.user_id as string,
  clientId: r.client_id as string,
  scopes: (r.scopes as string).split(' '),
  resource: (r.resource as string | null) ?? null,
});

interface RotationRequest {
  tokenHash: string;
  clientId: string;
  next: { hash: string; expiresAt: number };
  check: (grant: Grant) => string | null;
}

/** Rotations per shared transaction at most: enough for a burst, short enough that none waits long. */
const MAX_ROTATIONS_PER_TRANSACTION = 64;

/** One rotation inside `tx` (see `AppRepository.rotateRefreshToken`). */
async function rotateIn(tx: Transaction, now: number, { tokenHash, clientId, next, check }: RotationRequest): Promise<RefreshRotation> {
  const r = await tx.one(
    `SELECT r.used_at, r.expires_at, g.id, g.user_id, g.client_id, g.scopes, g.resource, g.revoked_at, g.last_used_at
       FROM refresh_tokens r JOIN app_grants g ON g.id = r.grant_id WHERE r.token_hash = @tokenHash FOR UPDATE`,
    { tokenHash },
  );
  // Another client's refresh token is unknown to this one, and stays usable by its own.
  if (!r || r.client_id !== clientId) return { ok: false, reason: 'unknown' };
  const grant = grantOf(r);
  if (r.used_at !== null) return { ok: false, reason: 'reused', grantId: grant.id };
  if (r.revoked_at !== null) return { ok: false, reason: 'revoked' };
  if ((r.expires_at as number) <= now) return { ok: false, reason: 'expired' };
  const refused = check(grant);
  if (refused !== null) return { ok: false, reason: 'refused', detail: refused, grant };
  await tx.run('UPDATE refresh_tokens SET used_at = @now WHERE token_hash = @tokenHash', { tokenHash, now });
  await tx.run('INSERT INTO refresh_tokens (token_hash, grant_id, created_at, expires_at) VALUES (@hash, @grantId, @now, @expiresAt)', {
    hash: next.hash,
    grantId: grant.id,
    now,
    expiresAt: next.expiresAt,
  });
  // A grant's last use is shown to its user; a minute is precise enough, and spares most rotations a third write.
  const lastUsedAt = (r.last_used_at as number | null) ?? null;
  if (lastUsedAt === null || now - lastUsedAt >= GRANT_LAST_USED_RESOLUTION_MS) {
    await tx.run('UPDATE app_grants SET last_used_at = @now WHERE id = @id', { id: grant.id, now });
  }
  return { ok: true, grant };
}

/**
 * Partner apps, what users approved them for (grants), and the codes and refresh tokens of
 * those approvals (only their hashes). A revocation announces `access`, so every process's
 * cached principals go and the grant's tokens stop working within the one-second bound.
 */
export class AppRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  private readonly rotations = new GroupCommit<RotationRequest, RefreshRotation>(
    (requests) =>
      this.db.write(null, async (tx) => {
        const answers: RefreshRotation[] = [];
        for (const request of requests) answers.push(await rotateIn(tx, this.clock.now(), request));
        return answers;
      }),
    MAX_ROTATIONS_PER_TRANSACTION,
  );

  createApp(input: NewApp, by: Actor): Promise<App> {
    return this.db.write(null, async (tx) => {
      const inserted = await tx.run(
        `INSERT INTO apps (client_id, name, client_type, origin, redirect_uris, scopes, secret_hash, created_at)
         VALUES (@clientId, @name, @clientType, @origin, @redirectUris, @scopes, @secretHash, @now) ON CONFLICT DO NOTHING`,
        { ...input, redirectUris: JSON.stringify(input.redirectUris), scopes: input.scopes.join(' '), now: this.clock.now() },
      );
      if (inserted === 0) throw appConflict.exists(input.clientId);
      await audit(tx, this.clock, by, 'app.create', input.clientId, { name: input.name, clientType: input.clientType, origin: input.origin });
      return withoutSecret((await findApp(tx, input.clientId))!);
    });
  }

  /**
   * Stores what a client ID metadata document said, as of now (a cache: nothing is audited).
   * A document that changed what a known app is (its name, redirect URIs or scopes) announces
   * `access`, so no process goes on authenticating the app as it was; a first read, or the
   * same document read again, announces nothing (an app not found was never cached).
   */
  async saveMetadataApp(input: Omit<NewApp, 'origin' | 'clientType' | 'secretHash'>): Promise<App> {
    const known = await findApp(this.db, input.clientId);
    const changed =
      known !== null &&
      (known.name !== input.name || known.redirectUris.join(' ') !== input.redirectUris.join(' ') || known.scopes.join(' ') !== input.scopes.join(' '));
    return this.db.write(changed ? ACCESS : null, async (tx) => {
      const now = this.clock.now();
      await tx.run(
        `INSERT INTO apps (client_id, name, client_type, origin, redirect_uris, scopes, created_at, fetched_at)
         VALUES (@clientId, @name, 'public', 'metadata', @redirectUris, @scopes, @now, @now)
         ON CONFLICT (client_id) DO UPDATE SET name = @name, redirect_uris = @redirectUris, scopes = @scopes, fetched_at = @now`,
        { ...input, redirectUris: JSON.stringify(input.redirectUris), scopes: input.scopes.join(' '), now },
      );
      return withoutSecret((await findApp(tx, input.clientId))!);
    });
  }

  findApp(clientId: string): Promise<AppForAuth | null> {
    return findApp(this.db, clientId);
  }

  async listApps(): Promise<App[]> {
    return (await this.db.all(`SELECT ${APP_COLUMNS} FROM apps a ORDER BY a.created_at, a.client_id`)).map(appOf).map(withoutSecret);
  }

  /** Revokes an app and every grant of it: its tokens stop working, no user can authorize it again. */
  revokeApp(clientId: string, by: Actor): Promise<App> {
    return this.db.write(ACCESS, async (tx) => {
      const now = this.clock.now();
      const revoked = await tx.run('UPDATE apps SET revoked_at = @now WHERE client_id = @clientId AND revoked_at IS NULL', { clientId, now });
      const app = await findApp(tx, clientId);
      if (!app) throw appConflict.noApp(clientId);
      if (revoked > 0) {
        await tx.run('UPDATE app_grants SET revoked_at = @now WHERE client_id = @clientId AND revoked_at IS NULL', { clientId, now });
        await audit(tx, this.clock, by, 'app.revoke', clientId, { name: app.name });
      }
      return withoutSecret(app);
    });
  }

  /** Keeps a code until it is exchanged or expires; codes expired a while ago go. */
  createCode(code: NewAuthorizationCode): Promise<void> {
    return this.db.write(null, async (tx) => {
      await tx.run('DELETE FROM authorization_codes WHERE expires_at <= @before', { before: this.clock.now() - 3600_000 });
      await tx.run(
        `INSERT INTO authorization_codes (code_hash, client_id, user_id, redirect_uri, code_challenge, scopes, resource, expires_at)
         VALUES (@codeHash, @clientId, @userId, @redirectUri, @codeChallenge, @scopes, @resource, @expiresAt)`,
        { ...code, scopes: code.scopes.join(' ') },
      );
    });
  }

  /**
   * Exchanges a code once: `check` says why this request may not have it (another client, a
   * redirect URI or verifier that does not match); otherwise a grant is created with its first
   * refresh token. Either way the code is used up. A code used before is answered `replayed`
   * with the grant its first use created, for the caller to revoke.
   */
  exchangeCode(
    codeHash: string,
    check: (code: AuthorizationCode) => string | null,
    issue: { grantId: string; refreshHash: string; refreshExpiresAt: number },
  ): Promise<CodeExchange> {
    return this.db.write(null, async (tx) => {
      const r = await tx.one('SELECT * FROM authorization_codes WHERE code_hash = @codeHash FOR UPDATE', { codeHash });
      if (!r) return { ok: false, reason: 'unknown' } as const;
      const code: AuthorizationCode = {
        codeHash,
        clientId: r.client_id as string,
        userId: r.user_id as string,
        redirectUri: r.redirect_uri as string,
        codeChallenge: r.code_challenge as string,
        scopes: (r.scopes as string).split(' '),
        resource: (r.resource as string | null) ?? null,
        expiresAt: r.expires_at as number,
        usedAt: (r.used_at as number | null) ?? null,
        grantId: (r.grant_id as string | null) ?? null,
      };
      if (code.usedAt !== null) return { ok: false, reason: 'replayed', grantId: code.grantId } as const;
      const now = this.clock.now();
      if (code.expiresAt <= now) {
        await tx.run('UPDATE authorization_codes SET used_at = @now WHERE code_hash = @codeHash', { codeHash, now });
        return { ok: false, reason: 'expired' } as const;
      }
      const refused = check(code);
      const grantId = refused === null ? issue.grantId : null;
      await tx.run('UPDATE authorization_codes SET used_at = @now, grant_id = @grantId WHERE code_hash = @codeHash', { codeHash, now, grantId });
      if (refused !== null) return { ok: false, reason: 'refused', detail: refused } as const;
      const grant: Grant = { id: issue.grantId, userId: code.userId, clientId: code.clientId, scopes: code.scopes, resource: code.resource };
      await tx.run(
        `INSERT INTO app_grants (id, user_id, client_id, scopes, resource, created_at, last_used_at)
         VALUES (@id, @userId, @clientId, @scopes, @resource, @now, @now)`,
        { ...grant, scopes: grant.scopes.join(' '), now },
      );
      await tx.run('INSERT INTO refresh_tokens (token_hash, grant_id, created_at, expires_at) VALUES (@hash, @grantId, @now, @expiresAt)', {
        hash: issue.refreshHash,
        grantId: issue.grantId,
        now,
        expiresAt: issue.refreshExpiresAt,
      });
      const user = await tx.one('SELECT email FROM users WHERE id = @id', { id: code.userId });
      await audit(tx, this.clock, { actor: `user:${user?.email as string}` }, 'app.authorize', code.clientId, { scopes: grant.scopes.join(' ') });
      return { ok: true, grant } as const;
    });
  }

  /**
   * Rotates a refresh token: the presented one is used up and `next` replaces it in the same
   * family. A token used before means it was copied: the caller revokes the whole family.
   * `check` says why this request may not have the grant's tokens (a wider scope, another
   * resource); then nothing changes and the presented token stays usable.
   *
   * Rotations arriving together share one transaction (one COMMIT, and on PostgreSQL one WAL
   * flush, for all of them), each run as if alone and in arrival order: a token presented
   * twice in one batch is rotated once and then found used, as it would be one after the other.
   */
  rotateRefreshToken(
    tokenHash: string,
    clientId: string,
    next: { hash: string; expiresAt: number },
    check: (grant: Grant) => string | null,
  ): Promise<RefreshRotation> {
    return this.rotations.add({ tokenHash, clientId, next, check });
  }

  /** The grant a refresh token of `clientId` belongs to (spent or not), or null. */
  async grantOfRefreshToken(tokenHash: string, clientId: string): Promise<string | null> {
    const r = await this.db.one(
      'SELECT g.id FROM refresh_tokens r JOIN app_grants g ON g.id = r.grant_id WHERE r.token_hash = @tokenHash AND g.client_id = @clientId',
      { tokenHash, clientId },
    );
    return (r?.id as string | undefined) ?? null;
  }

  /** A refresh token of `clientId` that works now (unspent, unexpired, its grant, app and user live), or null. */
  async findLiveRefreshToken(tokenHash: string, clientId: string): Promise<LiveRefreshToken | null> {
    const r = await this.db.one(
      `SELECT r.created_at, r.expires_at, g.user_id, g.scopes, u.email
         FROM refresh_tokens r JOIN app_grants g ON g.id = r.grant_id JOIN apps a ON a.client_id = g.client_id JOIN users u ON u.id = g.user_id
        WHERE r.token_hash = @tokenHash AND g.client_id = @clientId AND r.used_at IS NULL AND r.expires_at > @now
          AND g.revoked_at IS NULL AND a.revoked_at IS NULL AND u.status = 'active'`,
      { tokenHash, clientId, now: this.clock.now() },
    );
    if (!r) return null;
    return {
      userId: r.user_id as string,
      email: r.email as string,
      scopes: (r.scopes as string).split(' '),
      issuedAt: r.created_at as number,
      expiresAt: r.expires_at as number,
    };
  }

  /** Ends one grant and with it every token of its family (a replayed code, a reused refresh token). */
  revokeGrant(grantId: string, by: Actor, why: string): Promise<void> {
    return this.db.write(ACCESS, async (tx) => {
      const revoked = await tx.run('UPDATE app_grants SET revoked_at = @now WHERE id = @grantId AND revoked_at IS NULL', { grantId, now: this.clock.now() });
      if (revoked > 0) await audit(tx, this.clock, by, 'grant.revoke', grantId, { why });
    });
  }

  /** A user takes back every approval of an app: all its grants end, with every token of them. */
  revokeUserApp(userId: string, clientId: string, by: Actor): Promise<number> {
    return this.db.write(ACCESS, async (tx) => {
      const revoked = await tx.run('UPDATE app_grants SET revoked_at = @now WHERE user_id = @userId AND client_id = @clientId AND revoked_at IS NULL', {
        userId,
        clientId,
        now: this.clock.now(),
      });
      if (revoked > 0) await audit(tx, this.clock, by, 'app.unauthorize', clientId, { userId, grants: revoked });
      return revoked;
    });
  }

  /**
   * Whether the user has approved the app for all of `scopes` at `resource` (null: the REST
   * API) and not taken it back: the live grants of the app for that resource cover them
   * together (the most recent 50, however many authorizations there were).
   */
  async approvalCovers(userId: string, clientId: string, scopes: readonly string[], resource: string | null): Promise<boolean> {
    const rows = await this.db.all(
      `SELECT scopes, resource FROM app_grants WHERE user_id = @userId AND client_id = @clientId AND revoked_at IS NULL
        ORDER BY created_at DESC LIMIT 50`,
      { userId, clientId },
    );
    const approved = new Set(rows.filter((r) => ((r.resource as string | null) ?? null) === resource).flatMap((r) => (r.scopes as string).split(' ')));
    return scopes.every((s) => approved.has(s));
  }

  /** The apps a user has approved and not revoked: the scopes of every live grant, and when it last got a token. */
  async approvedApps(userId: string): Promise<ApprovedApp[]> {
    const rows = await this.db.all(
      `SELECT g.client_id, a.name, g.scopes, g.created_at, g.last_used_at FROM app_grants g JOIN apps a ON a.client_id = g.client_id
        WHERE g.user_id = @userId AND g.revoked_at IS NULL AND a.revoked_at IS NULL ORDER BY a.name, g.client_id`,
      { userId },
    );
    const byApp = new Map<string, ApprovedApp>();
    for (const r of rows) {
      const clientId = r.client_id as string;
      const seen = byApp.get(clientId);
      const scopes = (r.scopes as string).split(' ');
      const lastUsedAt = (r.last_used_at as number | null) ?? null;
      if (!seen) {
        byApp.set(clientId, { clientId, name: r.name as string, scopes, approvedAt: r.created_at as number, lastUsedAt });
        continue;
      }
      seen.scopes = [...new Set([...seen.scopes, ...scopes])];
      seen.approvedAt = Math.min(seen.approvedAt, r.created_at as number);
      seen.lastUsedAt = Math.max(seen.lastUsedAt ?? 0, lastUsedAt ?? 0) || null;
    }
    return [...byApp.values()];
  }

  /** Who a user token acts for: null unless its grant is live, its app not revoked and its user active. */
  async findGrantPrincipal(grantId: string): Promise<Principal | null> {
    const r = await this.db.one(
      `SELECT g.client_id, u.id AS user_id, u.email FROM app_grants g JOIN users u ON u.id = g.user_id JOIN apps a ON a.client_id = g.client_id
        WHERE g.id = @grantId AND g.revoked_at IS NULL AND a.revoked_at IS NULL AND u.status = 'active'`,
      { grantId },
    );
    return r ? { clientId: r.client_id as string, userId: r.user_id as string, email: r.email as string } : null;
  }
}

async function findApp(db: Reader, clientId: string): Promise<AppForAuth | null> {
  const r = await db.one(`SELECT ${APP_COLUMNS} FROM apps a WHERE a.client_id = @clientId`, { clientId });
  return r ? appOf(r) : null;
}
