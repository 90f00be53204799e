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

/** What kind of research a test is (the Legacy family's `productType`). */
export const PRODUCT_TYPES = ['SURVEY', 'LIVE_CONVERSATION', 'NON_THINK_OUT_LOUD', 'THINK_OUT_LOUD'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

/** The test format whose sessions the v2 API serves (the Legacy family's study `type`). */
export const STUDY_TYPE = 'STUDYV2';

export interface TaskGroup {
  id: string;
  /** e.g. MAIN. */
  type: string;
}

/** One task of a test plan; its position is its place in the plan's list (from 1). */
export interface PlanTask {
  /** The task's UUID; when the plan gives none, one is derived from the plan's id and the position. */
  id?: string;
  text: string;
  /** e.g. blank, multiple_choice, rating_scale, launch_url. */
  taskType: string;
  /** The id of one of the plan's task groups. */
  taskGroupId?: string;
  grouping?: string;
  choices?: string[];
  /** A matrix task's rows (its columns are `choices`). */
  rows?: string[];
  /** In a QX_SCORE task group: what this task measures (docs/QXSCORE.md). */
  qxMeasure?: 'task_success' | 'usability' | 'trust' | 'appearance' | 'loyalty';
  multipleAnswers?: boolean;
  scaleMinimum?: number;
  scaleMaximum?: number;
  lowerEndpoint?: string;
  upperEndpoint?: string;
  launchUrl?: string;
  blurPII?: boolean;
  resultType?: string;
}

export interface TestPlan {
  id: string;
  shortTest: boolean;
  taskGroups: TaskGroup[];
  tasks: PlanTask[];
}

export interface Test {
  id: string;
  workspaceId: string;
  title: string;
  productType: string;
  /** Always STUDY_TYPE today. */
  type: string;
  createdAt: number;
  /** When the test was ordered (launched); its creation time unless given. */
  orderedAt: number;
  orderedBy: { email: string; name: string | null } | null;
  plan: TestPlan | null;
  sessionCount: number;
}

export interface TestInput {
  id: string;
  workspaceId: string;
  title: string;
  productType: string;
  orderedAt?: number;
  orderedBy?: { email: string; name: string | null };
  plan?: TestPlan;
}

export interface Session {
  sessionId: string;
  testId: string;
  audienceId: string | null;
  status: string;
  startTime: number;
  finishTime: number | null;
}

/**
 * A session to import, with what it contains when the file gives it (src/details/: checked
 * against the test's plan before it gets here, stored as given).
 */
export type SessionInput = Omit<Session, 'testId'> & { details?: StoredDetails };

/**
 * A session's details as stored: the document the API serves, and the answers scores are
 * computed from (a compact projection of the document, so a test's QXscores read a few
 * hundred bytes per session instead of every answer).
 */
export interface StoredDetails {
  document: object;
  scoring: readonly unknown[];
}

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

/** The status a session has once its participant finished: the only one the Results API lists. */
export const COMPLETED_STATUS = 'COMPLETE';
