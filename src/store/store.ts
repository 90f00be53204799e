/**
 * The one storage interface. Each database has one implementation (sqlite/, postgres/), and
 * one contract suite (store.contract.ts) runs against every implementation.
 *
 * Conventions: ids are lowercase UUID strings; times are epoch milliseconds; emails are
 * compared case-insensitively (stored as given, matched lowercased). Every mutation runs in
 * one transaction together with its audit event.
 */

export interface User {
  id: string;
  email: string;
  status: 'active' | 'disabled';
  createdAt: number;
}

export interface CredentialSecret {
  /** Keyed hash of the secret; never the secret itself. */
  hash: string;
  createdAt: number;
  /** When set, the secret stops working at this time (a rotation's grace period). */
  expiresAt: number | null;
}

export interface Credential {
  clientId: string;
  userId: string;
  email: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** Secrets that still work (or will until their expiresAt). */
  activeSecrets: number;
}

/** What client authentication needs, in one read. */
export interface ClientForAuth {
  clientId: string;
  userId: string;
  userActive: boolean;
  revoked: boolean;
  secrets: CredentialSecret[];
  lastUsedAt: number | null;
}

/** The caller behind a valid token: an active user holding an unrevoked credential. */
export interface Principal {
  clientId: string;
  userId: string;
  email: string;
}

export interface Workspace {
  id: string;
  name: string;
  createdAt: number;
}

export interface Member {
  workspaceId: string;
  email: string;
  addedAt: number;
}

export interface Test {
  id: string;
  workspaceId: string;
  title: string;
  productType: string;
  createdAt: number;
  sessionCount: number;
}

export interface Session {
  sessionId: string;
  testId: string;
  audienceId: string | null;
  status: string;
  startTime: number;
  finishTime: number | null;
}

export type SessionInput = Omit<Session, 'testId'>;

/** A session's place in page order. */
export interface SessionKey {
  startTime: number;
  sessionId: string;
}

export interface ImportResult {
  inserted: number;
  updated: number;
  unchanged: number;
}

export interface SigningKey {
  kid: string;
  alg: 'RS256';
  /** PKCS#8 PEM. Never leaves the server. */
  privateKeyPem: string;
  publicJwk: Record<string, unknown>;
  createdAt: number;
  /** When it stopped signing; null for the active key. */
  retiredAt: number | null;
}

export interface AuditEvent {
  id: number;
  at: number;
  actor: string;
  action: string;
  subject: string;
  details: Record<string, unknown>;
}

export type AuditInput = Omit<AuditEvent, 'id' | 'at'>;

/** Who performs a mutation; recorded in the audit log. */
export interface Actor {
  actor: string;
}

/** A store operation refused for a reason the caller can act on (not a fault). */
export class StoreConflictError extends Error {
  override name = 'StoreConflictError';
  constructor(
    readonly code: 'duplicate' | 'not_found' | 'foreign_session',
    message: string,
  ) {
    super(message);
  }
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  migrate(): Promise<{ applied: number[] }>;
  close(): Promise<void>;
  /** Cheap liveness check of the database. */
  ping(): Promise<void>;
  /**
   * SQLite only: a number that changes when another connection (a CLI command, another
   * worker) commits. Cheap enough to call on every request; caches compare it.
   */
  externalChangeVersion?(): number;
  /** PostgreSQL only: the connection pool's state, for metrics. */
  poolStats?(): { total: number; idle: number; waiting: number };

  /** Returns the stored value, or stores `value` if none exists and returns it. */
  getOrSetSetting(key: string, value: string): Promise<string>;

  createUser(email: string, by: Actor): Promise<User>;
  findUserByEmail(email: string): Promise<User | null>;
  listUsers(): Promise<User[]>;
  setUserStatus(email: string, status: User['status'], by: Actor): Promise<User>;

  /** Creates a credential with its first secret. Fails if the user already holds an active one. */
  createCredential(input: { clientId: string; email: string; secretHash: string }, by: Actor): Promise<Credential>;
  /** Adds a secret; secrets beyond the newest two are expired at `retireOthersAt`. */
  addCredentialSecret(
    input: { clientId: string; secretHash: string; retireOthersAt: number },
    by: Actor,
  ): Promise<Credential>;
  /**
   * Ends a rotation's grace period now: every secret but the newest stops working. Retiring
   * when nothing is in grace changes nothing (and audits nothing). Refuses an unknown or
   * revoked credential.
   */
  retirePreviousSecrets(clientId: string, by: Actor): Promise<{ credential: Credential; retired: number }>;
  revokeCredential(clientId: string, by: Actor): Promise<Credential>;
  listCredentials(): Promise<Credential[]>;
  findClientForAuth(clientId: string): Promise<ClientForAuth | null>;
  recordClientUse(clientId: string, at: number): Promise<void>;
  /** Null unless the credential exists, is not revoked and its user is active. */
  findPrincipal(clientId: string): Promise<Principal | null>;

  createWorkspace(input: { id: string; name: string }, by: Actor): Promise<Workspace>;
  listWorkspaces(): Promise<Workspace[]>;
  getWorkspace(id: string): Promise<Workspace | null>;
  /** Workspaces where `email` is a member. */
  listWorkspacesForMember(email: string): Promise<Workspace[]>;

  addMember(workspaceId: string, email: string, by: Actor): Promise<Member>;
  removeMember(workspaceId: string, email: string, by: Actor): Promise<void>;
  listMembers(workspaceId: string): Promise<Member[]>;
  isMember(workspaceId: string, email: string): Promise<boolean>;

  createTest(
    input: { id: string; workspaceId: string; title: string; productType: string },
    by: Actor,
  ): Promise<Test>;
  getTest(id: string): Promise<Test | null>;
  listTests(workspaceId: string): Promise<Test[]>;
  /** The test, if it lies in a workspace where `email` is a member; otherwise null. */
  findVisibleTest(testId: string, email: string): Promise<Test | null>;

  /**
   * Upserts by sessionId in one transaction: all rows or none. A session listed twice is
   * applied in order (the last one wins; each later copy counts as updated or unchanged).
   */
  importSessions(testId: string, sessions: SessionInput[], by: Actor): Promise<ImportResult>;
  /**
   * `importSessions` for more sessions than fit in memory: reads `batches` one at a time and
   * writes them all or none, in one transaction that commits only after the last batch. If
   * the iterator throws (a bad line found late, an interrupt) or the process dies, the
   * database is left exactly as it was; the iterator's error is rethrown.
   */
  importSessionStream(testId: string, batches: AsyncIterable<readonly SessionInput[]>, by: Actor): Promise<ImportResult>;
  /**
   * Newest first by startTime, ties by sessionId descending. With `after`, the listing starts
   * just past that key and `offset` counts from there (a seek instead of skipping rows).
   */
  listSessions(testId: string, offset: number, limit: number, after?: SessionKey): Promise<Session[]>;
  /**
   * Keys of the sessions at 0-based positions every−1, 2·every−1, … below `upTo`, in page
   * order: anchors from which any offset up to `upTo` is a short seek.
   */
  listSessionKeys(testId: string, every: number, upTo: number): Promise<SessionKey[]>;

  listSigningKeys(): Promise<SigningKey[]>;
  /** Adds `key` as the signing key and retires the previous one, in one transaction. */
  addSigningKey(key: Omit<SigningKey, 'retiredAt'>, by: Actor): Promise<void>;

  /** RFC 7009: remembers a revoked token's jti until the token would have expired anyway. */
  revokeAccessToken(jti: string, expiresAt: number, by: Actor): Promise<void>;
  isAccessTokenRevoked(jti: string, now: number): Promise<boolean>;

  appendAudit(event: AuditInput): Promise<void>;
  listAudit(options?: { limit?: number }): Promise<AuditEvent[]>;
}
