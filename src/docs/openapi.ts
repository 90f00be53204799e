import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { AuthorizationServers } from '../oauth/authorization-servers.js';
import type { Config } from '../config.js';

/**
 * The OpenAPI 3.1 document is generated from the route schemas that validate requests and
 * serialize responses, so it cannot drift from what the server does. Must be registered
 * before the routes it describes.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  deps: { config: Config; servers: AuthorizationServers },
): Promise<void> {
  const { config, servers } = deps;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'results-api',
        version: '1.0.0',
        description:
          'OAuth 2.0 client-credentials authorization servers and the research Results API. ' +
          'Mint a token at an authorization server, then list the session results of a test.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: config.baseUrl }],
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description: 'Client-credentials grant; either authorization server issues tokens valid on every endpoint.',
            flows: {
              clientCredentials: {
                tokenUrl: `${servers.custom.issuer}/v1/token`,
                scopes: { [servers.custom.scope]: 'Read results (form B)' },
              },
            },
          },
          oauth2Default: {
            type: 'oauth2',
            flows: {
              clientCredentials: {
                tokenUrl: `${servers.default.issuer}/v1/token`,
                scopes: { [servers.default.scope]: 'Read results (form A)' },
              },
            },
          },
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Form B: Authorization: Bearer <token>' },
          tokenHeader: { type: 'apiKey', in: 'header', name: 'token', description: 'Form A: token: <token>' },
        },
      },
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
