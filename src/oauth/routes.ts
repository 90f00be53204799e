import type { FastifyInstance } from 'fastify';
import { clientSecretThrottle } from '../access/guessing-throttle.js';
import type { OAuthDeps } from './oauth-deps.js';
import { PUBLIC_SECURITY } from '../docs/security-schemes.js';
import { serverDocs } from '../docs/tags.js';
import { publicDocumentResponses } from './responses.js';
import { allowAnyOrigin, registerAnyOriginPreflight } from './any-origin.js';
import { JwkSet } from './schemas.js';
import { registerDiscovery } from './discovery.js';
import { registerIntrospectionEndpoint } from './introspection-endpoint.js';
import { registerRevocationEndpoint } from './revocation-endpoint.js';
import { registerRegistrationEndpoint } from './registration-endpoint.js';
import { registerTokenEndpoint } from './token-endpoint.js';

/** Every endpoint of every authorization server, registered explicitly. */
export function registerAuthorizationServers(app: FastifyInstance, given: Omit<OAuthDeps, 'secretThrottle'>): void {
  const secretThrottle = clientSecretThrottle('token', { ...given, rateLimit: given.config.rateLimit, audit: given.store.audit });
  const deps: OAuthDeps = { ...given, secretThrottle };
  for (const server of deps.servers.all) {
    registerDiscovery(app, server, deps.config);
    registerTokenEndpoint(app, server, deps);
    registerIntrospectionEndpoint(app, server, deps);
    registerRevocationEndpoint(app, server, deps);
    registerRegistrationEndpoint(app, server, deps);

    const keysPath = `/oauth2/${server.id}/v1/keys`;
    registerAnyOriginPreflight(app, { path: keysPath, method: 'GET', tag: serverDocs(server).tag, operationId: `getKeys${serverDocs(server).suffix}` });
    app.get(
      keysPath,
      {
        onRequest: allowAnyOrigin,
        schema: {
          summary: `Signing keys (JWKS, form ${server.form})`,
          description: 'RFC 7517 JWK Set: the public keys that verify this server\'s access tokens, including a retired key until its tokens expire.',
          tags: [serverDocs(server).tag],
          operationId: `getKeys${serverDocs(server).suffix}`,
          security: PUBLIC_SECURITY,
          response: publicDocumentResponses({
            description: 'The JWK Set.',
            schema: JwkSet,
            maxAgeSeconds: 300,
            why: 'Keys change only by rotation, and a retired key stays published for a token lifetime.',
          }),
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
