import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { OperationDeps } from '../../operations/deps.js';
import { createUser, listUsers, setUserStatus } from '../../operations/users.js';
import { issueUserSetupLink, resetUserTotp, setUserPassword, UserSetupLinkView } from '../../operations/user-sign-in.js';
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

const PasswordBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false });

/** How API users sign in: invitations, reset links, passwords, two-step sign-in (`results-api users invite` …). */
export function registerUserSignInRoutes(app: FastifyInstance, deps: OperationDeps): void {
  const users = { tags: ['API users'] };

  app.post<{ Body: Static<typeof EmailBody> }>(
    '/admin/api/users/invitations',
    {
      schema: {
        ...users,
        summary: 'Invite an API user: a one-time link to choose a password (the user is created if new)',
        body: EmailBody,
        response: adminResponses({ 201: UserSetupLinkView }),
      },
    },
    async (request, reply) => {
      const caller = requireRole(request, 'support');
      return reply.code(201).send(await issueUserSetupLink(deps, emailField('email', request.body.email), 'invite', caller));
    },
  );

  app.post<{ Params: Static<typeof EmailParams> }>(
    '/admin/api/users/:email/setup-link',
    {
      schema: {
        ...users,
        summary: 'A new one-time link with which an API user chooses a new password (the earlier link stops working)',
        params: EmailParams,
        response: adminResponses({ 200: UserSetupLinkView }, [404]),
      },
    },
    async (request) => {
      const caller = requireRole(request, 'support');
      return issueUserSetupLink(deps, emailField('email', request.params.email), 'reset', caller);
    },
  );

  app.put<{ Params: Static<typeof EmailParams>; Body: Static<typeof PasswordBody> }>(
    '/admin/api/users/:email/password',
    {
      schema: {
        ...users,
        summary: "Set an API user's password (signs the user out everywhere)",
        params: EmailParams,
        body: PasswordBody,
        response: adminResponses({ 200: UserView }, [404]),
      },
    },
    async (request) => {
      const caller = requireRole(request, 'support');
      return setUserPassword(deps, emailField('email', request.params.email), request.body.password, caller);
    },
  );

  app.post<{ Params: Static<typeof EmailParams> }>(
    '/admin/api/users/:email/totp-reset',
    { schema: { ...users, summary: "Turn an API user's two-step sign-in off", params: EmailParams, response: adminResponses({ 200: UserView }, [404]) } },
    async (request) => {
      const caller = requireRole(request, 'support');
      return resetUserTotp(deps, emailField('email', request.params.email), caller);
    },
  );
}
