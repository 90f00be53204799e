import { FAMILY_SCOPES, READ_SCOPES, SERVER_SCOPES } from '../scope-names.js';
import type { ResourceFamily } from './caller.js';

const READ_SCOPE_SET = new Set(READ_SCOPES);

/** The scope that grants each family (`studies:read` grants the studies family and every other). */
export const SCOPE_OF_FAMILY: Readonly<Record<ResourceFamily, string>> = {
  studies: SERVER_SCOPES.custom,
  sessions: 'sessions:read',
  videos: 'videos:read',
  clips: 'clips:read',
};

const FAMILY_OF_SCOPE = new Map<string, ResourceFamily>(
  (Object.entries(SCOPE_OF_FAMILY) as [ResourceFamily, string][]).filter(([, scope]) => (FAMILY_SCOPES as readonly string[]).includes(scope)).map(([family, scope]) => [scope, family]),
);

/**
 * What a token's scopes let it read: `all` for a read scope (everything the caller's memberships
 * allow), the granted families for family scopes, null for nothing readable.
 */
export function familiesOf(scopes: readonly string[]): 'all' | ReadonlySet<ResourceFamily> | null {
  if (scopes.some((s) => READ_SCOPE_SET.has(s))) return 'all';
  const families = new Set(scopes.flatMap((s) => FAMILY_OF_SCOPE.get(s) ?? []));
  return families.size > 0 ? families : null;
}
