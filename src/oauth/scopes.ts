import { oauthErrors } from '../errors.js';
import type { AuthorizationServer } from './authorization-servers.js';
import { WEBHOOKS_SCOPE } from '../scope-names.js';

// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces.
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** What a server offers: its read scope, and managing webhooks. */
export const offeredScopes = (server: AuthorizationServer): string[] => [server.scope, WEBHOOKS_SCOPE];

/**
 * The scopes to grant: the server's own read scope when none is requested (RFC 6749 §3.3 lets
 * the server apply a default), otherwise exactly the requested ones, each of which the server
 * must offer.
 */
export function grantScopes(server: AuthorizationServer, requested: string | undefined): string[] {
  if (requested === undefined || requested.trim() === '') return [server.scope];
  const tokens = requested.split(' ').filter((t) => t !== '');
  const offered = offeredScopes(server);
  if (!tokens.every((t) => SCOPE_TOKEN.test(t) && offered.includes(t))) {
    throw oauthErrors.invalidScope(requested, offered.join(' '));
  }
  return [...new Set(tokens)];
}
