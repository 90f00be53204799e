import type { Principal } from '../store/store.js';

/**
 * What a token may be narrowed to read, family by family (issue 34's per-family scopes such as
 * `sessions:read`, `clips:read`, `videos:read`). Every resolver of ResourceAccess names the
 * family of what it serves, and refuses a caller whose token does not grant it.
 */
export type ResourceFamily = 'studies' | 'sessions' | 'videos' | 'clips';

/**
 * Who is calling: the principal behind a client-credentials token, or behind an app's token for
 * a user (its grant's user), as cached (not copied per request: a per-request copy was most of
 * what a list request left for the old generation to collect). `families` absent means every
 * family: `public_api.read` and `studies:read` grant everything the caller's memberships allow;
 * an app's token with family scopes (`sessions:read`, `videos:read`, `clips:read`) gets a
 * per-request caller with those families (src/access/scope-families.ts).
 */
export interface Caller extends Principal {
  readonly families?: ReadonlySet<ResourceFamily>;
}
