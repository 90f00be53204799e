import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { CLIENT_ID_PATTERN } from '../../oauth/client-secrets.js';
import { issueCredential, listCredentials, publicEndpoints, retirePreviousSecret, revokeCredential, rotateCredential } from '../../operations/credentials.js';
import type { OperationDeps } from '../../operations/deps.js';
import { CredentialView, IssuedCredential, PublicEndpoints, RetiredCredential, RevokedCredential, RotatedCredential } from '../../operations/views.js';
import { requireRole } from '../caller.js';
import { emailField } from '../fields.js';
import { adminResponses, Email } from '../schemas.js';

const EmailBody = Type.Object({ email: Email }, { additionalProperties: false });
const ClientIdParams = Type.Object({ clientId: Type.String({ pattern: CLIENT_ID_PATTERN.source, description: '"0oa" and 17 letters or digits.' }) });
const RotateBody = Type.Object(
  { retirePreviousNow: Type.Optional(Type.Boolean({ description: 'The previous secret stops working at once (no grace period).' })) },
  { additionalProperties: false },
);
const CredentialsQuery = Type.Object({ email: Type.Optional(Email) }, { additionalProperties: false });

/** API users' client credentials: support staff and operators (`results-api credentials`). The secret is shown once. */
export function registerCredentialRoutes(app: FastifyInstance, deps: OperationDeps): void {
  const creds = { tags: ['Credentials'] };

  app.get<{ Querystring: Static<typeof CredentialsQuery> }>(
    '/admin/api/credentials',
    {
      schema: { ...creds, summary: 'List credentials (never their secrets)', querystring: CredentialsQuery, response: adminResponses({ 200: Type.Array(CredentialView) }) },
    },
    async (request) => {
      requireRole(request, 'support');
      const email = request.query.email === undefined ? undefined : emailField('email', request.query.email);
      return listCredentials(deps, email);
    },
  );

  app.post<{ Body: Static<typeof EmailBody> }>(
    '/admin/api/credentials',
    {
      schema: {
        ...creds,
        summary: 'Issue a client id and secret to an API user',
        description: 'The secret is in this answer and nowhere else (only its hash is kept): hand it over through a secure channel.',
        body: EmailBody,
        response: adminResponses({ 201: IssuedCredential }, [404, 409]),
      },
    },
    async (request, reply) => {
      const caller = requireRole(request, 'support');
      return reply.code(201).send(await issueCredential(deps, emailField('email', request.body.email), caller));
    },
  );

  app.post<{ Params: Static<typeof ClientIdParams>; Body: Static<typeof RotateBody> | undefined }>(
    '/admin/api/credentials/:clientId/rotate',
    {
      schema: {
        ...creds,
        summary: 'Issue a second secret (shown once); the previous one works for the grace period',
        params: ClientIdParams,
        body: Type.Union([RotateBody, Type.Null()]),
        response: adminResponses({ 200: RotatedCredential }, [404, 409]),
      },
    },
    async (request) => {
      const caller = requireRole(request, 'support');
      return rotateCredential(deps, request.params.clientId, request.body?.retirePreviousNow === true, caller);
    },
  );

  app.post<{ Params: Static<typeof ClientIdParams> }>(
    '/admin/api/credentials/:clientId/retire-previous',
    { schema: { ...creds, summary: "End a rotation's grace period now", params: ClientIdParams, response: adminResponses({ 200: RetiredCredential }, [404, 409]) } },
    async (request) => retirePreviousSecret(deps, request.params.clientId, requireRole(request, 'support')),
  );

  app.post<{ Params: Static<typeof ClientIdParams> }>(
    '/admin/api/credentials/:clientId/revoke',
    {
      schema: { ...creds, summary: 'Revoke a credential: its tokens stop working on the next request', params: ClientIdParams, response: adminResponses({ 200: RevokedCredential }, [404]) },
    },
    async (request) => revokeCredential(deps, request.params.clientId, requireRole(request, 'support')),
  );

  app.get(
    '/admin/api/public-endpoints',
    { schema: { ...creds, summary: 'Where API users get tokens and read results (what a rotated secret is handed over with)', response: adminResponses({ 200: PublicEndpoints }) } },
    async (request) => {
      requireRole(request, 'support');
      return publicEndpoints(deps);
    },
  );
}
