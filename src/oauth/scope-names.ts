/** The one scope each authorization server offers (the seed's forms A and B). */
export const SERVER_SCOPES = { default: 'public_api.read', custom: 'studies:read' } as const;

/** A token carrying any of these may read results. */
export const READ_SCOPES: readonly string[] = [SERVER_SCOPES.default, SERVER_SCOPES.custom];
