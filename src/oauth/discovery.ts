import { offeredScopes } from './scopes.js';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { AuthorizationServer } from './authorization-servers.js';
import { PUBLIC_SECURITY } from '../docs/security-schemes.js';
import { serverDocs } from '../docs/tags.js';
import { publicDocumentResponses } from './responses.js';
import { allowAnyOrigin, registerAnyOriginPreflight } from './any-origin.js';
import { AuthorizationServerMetadata } from './schemas.js';
import { userScopesOf } from '../scope-names.js';

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];

/** RFC 8414 §2: exactly what this server supports, nothing it does not. */
export function authorizationServerMetadata(server: AuthorizationServer, config: Config) {
  return {
    issuer: server.issuer,
    authorization_endpoint: `${server.issuer}/v1/authorize`,
    token_endpoint: `${server.issuer}/v1/token`,
    jwks_uri: `${server.issuer}/v1/keys`,
    introspection_endpoint: `${server.issuer}/v1/introspect`,
    revocation_endpoint: `${server.issuer}/v1/revoke`,
    grant_types_supported: ['client_credentials', 'authorization_code', 'refresh_token'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    // PKCE with S256 is required of every authorization request (OAuth 2.1).
    code_challenge_methods_supported: ['S256'],
    // RFC 9207: every authorization response carries iss.
    authorization_response_iss_parameter_supported: true,
    // What apps acting for users may ask for, and what client credentials may (managing webhooks).
    scopes_supported: [...new Set([...userScopesOf(server.scope), ...offeredScopes(server)])],
    // `none`: a public app (PKCE alone) at the token endpoint; client credentials always authenticate.
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS, 'none'],
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    service_documentation: `${config.baseUrl}/docs`,
    ...(config.clientRegistration.dynamic ? { registration_endpoint: `${server.issuer}/v1/register` } : {}),
    // draft-ietf-oauth-client-id-metadata-document: a client_id that is an https URL is read from there.
    ...(config.clientRegistration.metadataDocuments ? { client_id_metadata_document_supported: true } : {}),
  };
}

/**
 * Serves the metadata where clients look for it: appended to the issuer (Okta's layout and
 * OpenID Connect Discovery's), and inserted after the host (RFC 8414 §3.1).
 */
export function registerDiscovery(app: FastifyInstance, server: AuthorizationServer, config: Config): void {
  const metadata = authorizationServerMetadata(server, config);
  const { tag, suffix } = serverDocs(server);
  const locations = [
    { path: `/oauth2/${server.id}/.well-known/oauth-authorization-server`, name: 'Metadata', where: 'appended to the issuer (Okta)' },
    { path: `/oauth2/${server.id}/.well-known/openid-configuration`, name: 'OpenIdConfiguration', where: 'at the OpenID Connect Discovery location' },
    { path: `/.well-known/oauth-authorization-server/oauth2/${server.id}`, name: 'MetadataRfc8414', where: 'inserted after the host (RFC 8414 §3.1)' },
  ];
  for (const { path, name, where } of locations) {
    app.get(
      path,
      {
        onRequest: allowAnyOrigin,
        schema: {
          summary: `Authorization server metadata (form ${server.form}), ${where}`,
          description: 'RFC 8414: the endpoints, scopes and client authentication methods of this server. The same document at every location.',
          tags: [tag],
          operationId: `get${name}${suffix}`,
          security: PUBLIC_SECURITY,
          response: publicDocumentResponses({
            description: 'RFC 8414 §3.2 metadata.',
            schema: AuthorizationServerMetadata,
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
    registerAnyOriginPreflight(app, { path, method: 'GET', tag, operationId: `get${name}${suffix}` });
  }
}
