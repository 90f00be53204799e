/**
 * What the repositories store and return. Conventions: ids are lowercase UUID strings; times
 * are epoch milliseconds; emails are compared case-insensitively (stored as given, matched
 * lowercased). Every mutation runs in one transaction together with its audit event.
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

export type { Store } from './open-store.js';
