import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { PUBLIC_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import type { AuthorizationServers } from './authorization-servers.js';
import type { ProtectedResource, ProtectedResources } from './resource-indicators.js';
import { publicDocumentResponses } from './responses.js';
import { allowAnyOrigin, registerAnyOriginPreflight } from './any-origin.js';

const StringList = Type.Array(Type.String());

export const ProtectedResourceMetadata = Type.Object(
  {
    resource: Type.String({ description: 'The resource identifier: the `resource` to name at the token endpoint (RFC 8707).' }),
    authorization_servers: Type.Array(Type.String(), {
      description: 'Issuers whose tokens this resource accepts, the one to use first; each has RFC 8414 metadata.',
    }),
    scopes_supported: StringList,
    bearer_methods_supported: StringList,
    resource_name: Type.String(),
    resource_documentation: Type.String(),
  },
  { description: 'RFC 9728 §2 protected resource metadata.', title: 'ProtectedResourceMetadata' },
);

const NAMES = { api: 'Results API', mcp: 'Results API MCP server' } as const;

/**
 * RFC 9728 §2: what a client needs to get a token for `resource`. The custom server comes
 * first, and its scope alone is listed, because MCP clients ask for every listed scope at the
 * first server (the `default` server's `public_api.read` tokens serve as well).
 */
export function protectedResourceMetadata(resource: ProtectedResource, servers: AuthorizationServers, config: Pick<Config, 'baseUrl'>) {
  return {
    resource: resource.identifier,
    authorization_servers: [servers.custom.issuer, servers.default.issuer],
    scopes_supported: [servers.custom.scope],
    // `Authorization: Bearer` (and the REST API's `token` header): never the body or the query.
    bearer_methods_supported: ['header'],
    resource_name: NAMES[resource.name],
    resource_documentation: `${config.baseUrl}/docs`,
  };
}

/** Serves each resource's metadata at its well-known path (RFC 9728 §3). */
export function registerProtectedResourceMetadata(
  app: FastifyInstance,
  deps: { resources: ProtectedResources; servers: AuthorizationServers; config: Pick<Config, 'baseUrl'> },
): void {
  for (const resource of deps.resources.all) {
    const metadata = protectedResourceMetadata(resource, deps.servers, deps.config);
    const operationId = resource.name === 'mcp' ? 'getMcpResourceMetadata' : 'getApiResourceMetadata';
    app.get(
      resource.metadataPath,
      {
        onRequest: allowAnyOrigin,
        schema: {
          summary: `Protected resource metadata: ${NAMES[resource.name]}`,
          description:
            `RFC 9728: the ${NAMES[resource.name]} as a protected resource (\`${resource.name === 'mcp' ? 'BASE_URL/mcp' : 'BASE_URL'}\`), ` +
            'the authorization servers that issue its tokens and how to send them. Every 401 it answers names this document ' +
            'in `WWW-Authenticate: Bearer resource_metadata="…"`.',
          tags: [TAG.resources],
          operationId,
          security: PUBLIC_SECURITY,
          response: publicDocumentResponses({
            description: 'RFC 9728 §3.2 metadata.',
            schema: ProtectedResourceMetadata,
            maxAgeSeconds: 3600,
            why: 'Changes only with the configuration.',
          }),
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'public, max-age=3600');
        return metadata;
      },
    );
    registerAnyOriginPreflight(app, { path: resource.metadataPath, method: 'GET', tag: TAG.resources, operationId });
  }
}
