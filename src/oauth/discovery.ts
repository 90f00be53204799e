import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { AuthorizationServer } from './authorization-servers.js';
import { AuthorizationServerMetadata } from './schemas.js';

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];

/** RFC 8414 §2: exactly what this server supports, nothing it does not. */
export function authorizationServerMetadata(server: AuthorizationServer, config: Config) {
  return {
    issuer: server.issuer,
    token_endpoint: `${server.issuer}/v1/token`,
    jwks_uri: `${server.issuer}/v1/keys`,
    introspection_endpoint: `${server.issuer}/v1/introspect`,
    revocation_endpoint: `${server.issuer}/v1/revoke`,
    grant_types_supported: ['client_credentials'],
    // There is no authorization endpoint, so no response type is supported.
    response_types_supported: [],
    scopes_supported: [server.scope],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    service_documentation: `${config.baseUrl}/docs`,
  };
}

/**
 * Serves the metadata where clients look for it: appended to the issuer (Okta's layout and
 * OpenID Connect Discovery's), and inserted after the host (RFC 8414 §3.1).
 */
export function registerDiscovery(app: FastifyInstance, server: AuthorizationServer, config: Config): void {
  const metadata = authorizationServerMetadata(server, config);
  const paths = [
    `/oauth2/${server.id}/.well-known/oauth-authorization-server`,
    `/oauth2/${server.id}/.well-known/openid-configuration`,
    `/.well-known/oauth-authorization-server/oauth2/${server.id}`,
  ];
  for (const [i, path] of paths.entries()) {
    app.get(
      path,
      {
        schema: {
          summary: `Metadata of the ${server.id} authorization server`,
          tags: ['Authorization server'],
          operationId: `metadata_${server.form}_${i}`,
          hide: i > 0,
          response: { 200: AuthorizationServerMetadata },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'public, max-age=3600');
        return metadata;
      },
    );
  }
}
