import type { FastifyInstance } from 'fastify';
import type { OAuthDeps } from './oauth-deps.js';
import { JwkSet } from './schemas.js';
import { registerDiscovery } from './discovery.js';
import { registerIntrospectionEndpoint } from './introspection-endpoint.js';
import { registerRevocationEndpoint } from './revocation-endpoint.js';
import { registerTokenEndpoint } from './token-endpoint.js';

/** Every endpoint of every authorization server, registered explicitly. */
export function registerAuthorizationServers(app: FastifyInstance, deps: OAuthDeps): void {
  for (const server of deps.servers.all) {
    registerDiscovery(app, server, deps.config);
    registerTokenEndpoint(app, server, deps);
    registerIntrospectionEndpoint(app, server, deps);
    registerRevocationEndpoint(app, server, deps);

    app.get(
      `/oauth2/${server.id}/v1/keys`,
      {
        schema: {
          summary: `Signing keys of the ${server.id} server (JWKS)`,
          tags: ['Authorization server'],
          response: { 200: JwkSet },
        },
      },
      async (_request, reply) => {
        // Keys change only by rotation, and a retired key stays published for a token lifetime.
        reply.header('cache-control', 'public, max-age=300');
        return deps.keys.jwks();
      },
    );
  }
}
