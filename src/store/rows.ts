import type { Row } from './database.js';
import type { AuditEvent, Credential, Member, Session, SessionKey, SigningKey, Test, User, Workspace } from './store.js';

// Both dialects name their columns alike and return numbers for times and counts, so one
// mapping per row type serves both.

const nullable = <T>(value: unknown): T | null => (value as T | null | undefined) ?? null;
/** JSON columns: PostgreSQL's jsonb arrives parsed, SQLite's text does not. */
const json = <T>(value: unknown): T => (typeof value === 'string' ? (JSON.parse(value) as T) : (value as T));

export const userOf = (r: Row): User => ({
  id: r.id as string,
  email: r.email as string,
  status: r.status as User['status'],
  createdAt: r.created_at as number,
});

export const workspaceOf = (r: Row): Workspace => ({
  id: r.id as string,
  name: r.name as string,
  createdAt: r.created_at as number,
});

export const memberOf = (r: Row): Member => ({
  workspaceId: r.workspace_id as string,
  email: r.email as string,
  addedAt: r.added_at as number,
});

export const testOf = (r: Row): Test => ({
  id: r.id as string,
  workspaceId: r.workspace_id as string,
  title: r.title as string,
  productType: r.product_type as string,
  type: r.type as string,
  createdAt: r.created_at as number,
  orderedAt: (r.ordered_at as number | null) ?? (r.created_at as number),
  orderedBy: r.ordered_by_email ? { email: r.ordered_by_email as string, name: nullable(r.ordered_by_name) } : null,
  plan: r.test_plan ? json(r.test_plan) : null,
  sessionCount: r.session_count as number,
});

export const credentialOf = (r: Row): Credential => ({
  clientId: r.client_id as string,
  userId: r.user_id as string,
  email: r.email as string,
  createdAt: r.created_at as number,
  lastUsedAt: nullable(r.last_used_at),
  revokedAt: nullable(r.revoked_at),
  activeSecrets: r.active_secrets as number,
});

export const sessionOf = (testId: string) => (r: Row): Session => ({
  sessionId: r.session_id as string,
  testId,
  audienceId: nullable(r.audience_id),
  status: r.status as string,
  startTime: r.start_time as number,
  finishTime: nullable(r.finish_time),
});

export const sessionKeyOf = (r: Row): SessionKey => ({ startTime: r.start_time as number, sessionId: r.session_id as string });

export const signingKeyOf = (r: Row): SigningKey => ({
  kid: r.kid as string,
  alg: 'RS256',
  privateKeyPem: r.private_key_pem as string,
  publicJwk: json(r.public_jwk),
  createdAt: r.created_at as number,
  retiredAt: nullable(r.retired_at),
});

export const auditEventOf = (r: Row): AuditEvent => ({
  id: r.id as number,
  at: r.at as number,
  actor: r.actor as string,
  action: r.action as string,
  subject: r.subject as string,
  details: json(r.details),
});
