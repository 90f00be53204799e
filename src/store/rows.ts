import type { Credential, Test, User, Workspace } from './store.js';

/** A database row as both drivers return it: snake_case columns. */
export type Row = Record<string, unknown>;

// Both stores name their columns alike, so one mapping serves both.

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

export const testOf = (r: Row): Test => ({
  id: r.id as string,
  workspaceId: r.workspace_id as string,
  title: r.title as string,
  productType: r.product_type as string,
  createdAt: r.created_at as number,
  sessionCount: r.session_count as number,
});

export const credentialOf = (r: Row): Credential => ({
  clientId: r.client_id as string,
  userId: r.user_id as string,
  email: r.email as string,
  createdAt: r.created_at as number,
  lastUsedAt: (r.last_used_at as number | null) ?? null,
  revokedAt: (r.revoked_at as number | null) ?? null,
  activeSecrets: r.active_secrets as number,
});
