import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { PACKAGE_VERSION } from '../version.js';

/**
 * The admin API's own OpenAPI 3.1 document, generated from its route schemas and served by the
 * admin listener at /admin/api/openapi.json (never on the public port).
 */
export async function registerAdminOpenApi(app: FastifyInstance, deps: { config: Config }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'results-api admin API',
        version: PACKAGE_VERSION,
        summary: 'Operators, support staff and account admins manage users, credentials, workspaces, tests, keys and the audit log.',
        description:
          'Authenticate with the console session (POST /admin/api/sign-in sets an HttpOnly cookie; every change made with it ' +
          'carries the X-CSRF-Token header the sign-in returned), or with an admin API token from POST /admin/oauth2/v1/token ' +
          '(client credentials of an admin API client). Errors are RFC 9457 problem details.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: deps.config.admin ? [{ url: deps.config.admin.url, description: 'Admin listener (ADMIN_URL)' }] : [],
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'admin_session', description: 'The console session cookie (`__Host-admin_session` over https), with X-CSRF-Token on changes.' },
          adminToken: {
            type: 'oauth2',
            description: 'An admin API token: client credentials of an admin API client, sent as Authorization: Bearer.',
            flows: { clientCredentials: { tokenUrl: `${deps.config.admin?.url ?? ''}/admin/oauth2/v1/token`, scopes: { 'admin:operator': 'act as an operator', 'admin:support': 'act as support staff', 'admin:account-admin': 'act as an account admin' } } },
          },
        },
      },
      security: [{ session: [] }, { adminToken: [] }],
    },
  });
  app.get('/admin/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
