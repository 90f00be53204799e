import type { Clock } from '../clock.js';
import { FreshCache, type ChangeWatcher } from '../changes/fresh-cache.js';
import type { AppForAuth, AppRepository } from '../store/apps.js';
import type { CredentialRepository } from '../store/credentials.js';
import type { DirectoryRepository } from '../store/directory.js';
import type { SessionRepository } from '../store/sessions.js';
import type { TokenRevocationRepository } from '../store/token-revocations.js';
import type { Principal, Session, Test } from '../store/store.js';

export interface AccessReads {
  findPrincipal(clientId: string): Promise<Principal | null>;
  findVisibleTest(testId: string, email: string): Promise<Test | null>;
  /** A session and so the test it belongs to (null: no such session). */
  findSession(sessionId: string): Promise<Session | null>;
  /** Reads the sessions of `sessionIds` in one query, so that findSession finds them (a batch about to be checked one by one). */
  preloadSessions(sessionIds: readonly string[]): Promise<void>;
  isAccessTokenRevoked(jti: string, now: number): Promise<boolean>;
  /** Who an app's token for a user acts for: null once its grant, app or user is revoked or disabled. */
  findGrantPrincipal(grantId: string): Promise<Principal | null>;
  /**
   * An app as the token, introspection and revocation endpoints authenticate it. Only apps
   * found are kept (registering one announces nothing); revoking one announces `access`, and
   * so does a client ID metadata document that changes one.
   */
  findApp(clientId: string): Promise<AppForAuth | null>;
}

/** The repositories behind the cache. */
export interface AccessSources {
  credentials: Pick<CredentialRepository, 'findPrincipal'>;
  directory: Pick<DirectoryRepository, 'findVisibleTest'>;
  sessions: Pick<SessionRepository, 'findSession' | 'findSessions'>;
  revocations: Pick<TokenRevocationRepository, 'isRevoked'>;
  apps: Pick<AppRepository, 'findGrantPrincipal' | 'findApp'>;
}

/**
 * What every API request reads (the caller's credential and user, the test's visibility, the
 * session's test, the token's revocation), cached per process and dropped on any change (see
 * FreshCache), so a revocation or a removed member holds on the next request.
 */
export class CachedAccessReads implements AccessReads {
  private readonly principals: FreshCache<Principal | null>;
  private readonly tests: FreshCache<Test | null>;
  private readonly sessions: FreshCache<Session | null>;
  private readonly revoked: FreshCache<boolean>;
  private readonly grants: FreshCache<Principal | null>;
  private readonly apps: FreshCache<AppForAuth | null>;

  constructor(
    private readonly store: AccessSources,
    watcher: ChangeWatcher,
    clock: Clock,
  ) {
    this.principals = new FreshCache(watcher, clock);
    this.tests = new FreshCache(watcher, clock);
    this.sessions = new FreshCache(watcher, clock);
    this.revoked = new FreshCache(watcher, clock);
    this.grants = new FreshCache(watcher, clock);
    this.apps = new FreshCache(watcher, clock, { keep: (app) => app !== null });
  }

  findPrincipal(clientId: string): Promise<Principal | null> {
    return this.principals.get(clientId, () => this.store.credentials.findPrincipal(clientId));
  }

  findVisibleTest(testId: string, email: string): Promise<Test | null> {
    return this.tests.get(`${testId} ${email}`, () => this.store.directory.findVisibleTest(testId, email));
  }

  findSession(sessionId: string): Promise<Session | null> {
    return this.sessions.get(sessionId, () => this.store.sessions.findSession(sessionId));
  }

  async preloadSessions(sessionIds: readonly string[]): Promise<void> {
    // Each entry's load is the one query, started after the cache noted its epoch: a change
    // committed meanwhile keeps what it read out of the cache, as for any other load.
    let read: Promise<Map<string, Session>> | undefined;
    const readAll = () => (read ??= this.store.sessions.findSessions(sessionIds).then((found) => new Map(found.map((s) => [s.sessionId, s]))));
    await Promise.all(sessionIds.map((id) => this.sessions.get(id, async () => (await readAll()).get(id) ?? null)));
  }

  isAccessTokenRevoked(jti: string, now: number): Promise<boolean> {
    return this.revoked.get(jti, () => this.store.revocations.isRevoked(jti, now));
  }

  findGrantPrincipal(grantId: string): Promise<Principal | null> {
    return this.grants.get(grantId, () => this.store.apps.findGrantPrincipal(grantId));
  }

  findApp(clientId: string): Promise<AppForAuth | null> {
    return this.apps.get(clientId, () => this.store.apps.findApp(clientId));
  }
}
