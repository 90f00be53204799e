import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { APP_SCOPES, AppView, listApps, RegisteredAppView, registerApp, revokeApp } from '../../operations/apps.js';
import type { OperationDeps } from '../../operations/deps.js';
import { requireRole } from '../caller.js';
import { adminResponses } from '../schemas.js';

const RegisterBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'What users see on the consent page.' }),
    redirectUris: Type.Array(Type.String({ maxLength: 2000 }), { minItems: 1, maxItems: 10, description: 'https, loopback http (any port) or a private-use scheme.' }),
    scopes: Type.Array(Type.String({ enum: [...APP_SCOPES] }), { minItems: 1, maxItems: APP_SCOPES.length, description: 'What the app may ask a user for.' }),
    clientType: Type.Union([Type.Literal('confidential'), Type.Literal('public')], { description: 'confidential: a server-side app with a secret; public: a native or browser app (PKCE alone).' }),
  },
  { additionalProperties: false },
);
const ClientIdParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 2048 }) });

/** Partner apps that act for API users: support staff and operators (`results-api apps`). */
export function registerAppRoutes(app: FastifyInstance, deps: OperationDeps): void {
  const apps = { tags: ['Apps'] };

  app.get('/admin/api/apps', { schema: { ...apps, summary: 'List partner apps (never their secrets)', response: adminResponses({ 200: Type.Array(AppView) }) } }, async (request) => {
    requireRole(request, 'support');
    return listApps(deps);
  });

  app.post<{ Body: Static<typeof RegisterBody> }>(
    '/admin/api/apps',
    { schema: { ...apps, summary: 'Register a partner app; a confidential app\'s secret is in this answer only', body: RegisterBody, response: adminResponses({ 201: RegisteredAppView }) } },
    async (request, reply) => {
      const caller = requireRole(request, 'support');
      return reply.code(201).send(await registerApp(deps, request.body, caller));
    },
  );

  app.post<{ Params: Static<typeof ClientIdParams> }>(
    '/admin/api/apps/:clientId/revoke',
    {
      schema: {
        ...apps,
        summary: 'Revoke an app: every token users granted it stops working within a second, and no user can authorize it again',
        params: ClientIdParams,
        response: adminResponses({ 200: AppView }, [404]),
      },
    },
    async (request) => {
      const caller = requireRole(request, 'support');
      return revokeApp(deps, request.params.clientId, caller);
    },
  );
}
