import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { OperationDeps } from '../../operations/deps.js';
import { createUser, listUsers, setUserStatus } from '../../operations/users.js';
import { UserView } from '../../operations/views.js';
import { requireRole } from '../caller.js';
import { emailField } from '../fields.js';
import { adminResponses, Email } from '../schemas.js';

const EmailBody = Type.Object({ email: Email }, { additionalProperties: false });
const EmailParams = Type.Object({ email: Email });

/** API users, by email: support staff and operators (`results-api users`). */
export function registerUserRoutes(app: FastifyInstance, deps: OperationDeps): void {
  const users = { tags: ['API users'] };

  app.get('/admin/api/users', { schema: { ...users, summary: 'List API users', response: adminResponses({ 200: Type.Array(UserView) }) } }, async (request) => {
    requireRole(request, 'support');
    return listUsers(deps);
  });

  app.post<{ Body: Static<typeof EmailBody> }>(
    '/admin/api/users',
    { schema: { ...users, summary: 'Register an API user', body: EmailBody, response: adminResponses({ 201: UserView }, [409]) } },
    async (request, reply) => {
      const caller = requireRole(request, 'support');
      return reply.code(201).send(await createUser(deps, emailField('email', request.body.email), caller));
    },
  );

  for (const [verb, status] of [
    ['disable', 'disabled'],
    ['enable', 'active'],
  ] as const) {
    app.post<{ Params: Static<typeof EmailParams> }>(
      `/admin/api/users/:email/${verb}`,
      {
        schema: {
          ...users,
          summary: verb === 'disable' ? 'Disable an API user: its tokens stop working on the next request' : 'Enable a disabled API user again',
          params: EmailParams,
          response: adminResponses({ 200: UserView }, [404]),
        },
      },
      async (request) => {
        const caller = requireRole(request, 'support');
        return setUserStatus(deps, emailField('email', request.params.email), status, caller);
      },
    );
  }
}
