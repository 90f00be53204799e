import type { Config } from '../config.js';
import { oauthErrors } from '../errors.js';
import type { AuthorizationServer } from './authorization-servers.js';

/** The protected resources a token can be bound to (RFC 8707): the REST API and the MCP endpoint. */
export type ResourceName = 'api' | 'mcp';

/** One protected resource: its RFC 8707 identifier and where its RFC 9728 metadata lives. */
export interface ProtectedResource {
  name: ResourceName;
  /** The absolute URI a client names in `resource`, and the `aud` of a token bound to it. */
  identifier: string;
  /** RFC 9728 §3.1: `/.well-known/oauth-protected-resource` inserted between host and path. */
  metadataUrl: string;
  /** The path of that document on our listener. */
  metadataPath: string;
  /**
   * Does a token with this issuer's audience `aud` serve here? A token bound to a resource
   * serves that resource alone; a token without `resource` (the server's own audience, as
   * before RFC 8707 support) serves the REST API only, so a token minted for a pipeline cannot
   * drive an AI client, and an MCP token cannot call the REST API.
   */
  accepts(aud: string, server: AuthorizationServer): boolean;
}

export interface ProtectedResources {
  api: ProtectedResource;
  mcp: ProtectedResource;
  all: readonly ProtectedResource[];
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

function protectedResource(name: ResourceName, identifier: string, acceptsServerAudience: boolean): ProtectedResource {
  const url = new URL(identifier);
  const path = url.pathname === '/' ? '' : url.pathname;
  return {
    name,
    identifier,
    metadataUrl: `${url.origin}${WELL_KNOWN}${path}`,
    metadataPath: `${WELL_KNOWN}${name === 'mcp' ? '/mcp' : ''}`,
    accepts: (aud, server) => aud === identifier || (acceptsServerAudience && aud === server.audience),
  };
}

/** The REST API is BASE_URL itself; the MCP endpoint is `/mcp` under it. */
export function resolveProtectedResources(config: Pick<Config, 'baseUrl'>): ProtectedResources {
  const api = protectedResource('api', config.baseUrl, true);
  const mcp = protectedResource('mcp', `${config.baseUrl}/mcp`, false);
  return { api, mcp, all: [api, mcp] };
}

// A resource value is an absolute URI, bounded before anything looks at it.
const MAX_RESOURCE_LENGTH = 2048;

/**
 * RFC 8707 §2: the audience of the token to issue. No `resource`: the server's own audience,
 * exactly as before. Otherwise one of our resources, named by its exact identifier (a trailing
 * slash tolerated); anything else, or several resources at once, is `invalid_target`.
 */
export function audienceFor(
  resources: ProtectedResources,
  server: AuthorizationServer,
  requested: string | string[] | undefined,
): string {
  if (requested === undefined) return server.audience;
  const values = [...new Set(Array.isArray(requested) ? requested : [requested])];
  if (values.length !== 1) throw oauthErrors.invalidTarget('Name one resource per token request.');
  const value = values[0]!;
  if (value.length > MAX_RESOURCE_LENGTH || !URL.canParse(value) || value.includes('#')) {
    throw oauthErrors.invalidTarget('The resource must be an absolute URI without a fragment (RFC 8707 §2).');
  }
  const normalized = value.replace(/\/$/, '');
  const resource = resources.all.find((r) => r.identifier === normalized);
  if (!resource) {
    throw oauthErrors.invalidTarget(`This server issues tokens for ${resources.all.map((r) => r.identifier).join(' and ')} only.`);
  }
  return resource.identifier;
}
