/** The one scope each authorization server offers to client credentials (the seed's forms A and B). */
export const SERVER_SCOPES = { default: 'public_api.read', custom: 'studies:read' } as const;

/**
 * What both servers offer besides their read scope, granted only when asked for: managing the
 * caller's own webhook subscriptions (issue 35).
 */
export const WEBHOOKS_SCOPE = 'webhooks:manage';

/** A token carrying any of these may read everything its caller's memberships allow. */
export const READ_SCOPES: readonly string[] = [SERVER_SCOPES.default, SERVER_SCOPES.custom];

/**
 * Scopes an app acting for a user may be narrowed to, one resource family each (issue 34):
 * `studies:read` (which also means everything) names the studies family; these the others.
 */
export const FAMILY_SCOPES = ['sessions:read', 'videos:read', 'clips:read'] as const;

/** Every scope a user can grant an app on a server: the server's own (everything) and the family scopes. */
export const userScopesOf = (serverScope: string): string[] => [serverScope, ...FAMILY_SCOPES];

/** What each scope lets an app do, in the words of the consent page and of docs/USER-AUTH.md. */
export const SCOPE_WORDS: Readonly<Record<string, string>> = {
  'public_api.read': 'Read everything you can see: your workspaces, tests, sessions, transcripts, videos, clips and highlight reels',
  'studies:read': 'Read everything you can see: your workspaces, tests, sessions, transcripts, videos, clips and highlight reels',
  'sessions:read': "Read your tests' sessions: their results, answers and details",
  'videos:read': 'Watch session videos and read their transcripts',
  'clips:read': 'Watch clips and highlight reels',
};
