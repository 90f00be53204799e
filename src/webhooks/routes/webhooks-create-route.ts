import type { FastifyInstance } from 'fastify';
import { WEBHOOKS_SECURITY } from '../../docs/security-schemes.js';
import { TAG } from '../../docs/tags.js';
import { CreateWebhookBody, webhookResponses, WebhookWithSecret } from '../schemas.js';
import { createWebhook, type WebhookDeps } from '../subscriptions.js';

/** POST /api/v2/webhooks: subscribes the caller's user to events. */
export function registerWebhooksCreateRoute(scope: FastifyInstance, deps: WebhookDeps): void {
  scope.post<{ Body: CreateWebhookBody }>(
    '/api/v2/webhooks',
    {
      schema: {
        summary: 'Create a webhook subscription',
        description:
          'Events of the chosen types, for the tests the caller may see (narrowed to one test or workspace when given), are POSTed ' +
          'to `url`, signed per Standard Webhooks. The answer carries the signing secret (`whsec_…`), shown this once. `url` must be ' +
          'https at a public address; a test or workspace the caller cannot see is a 404.',
        tags: [TAG.webhooks],
        operationId: 'createWebhook',
        security: WEBHOOKS_SECURITY,
        body: CreateWebhookBody,
        response: webhookResponses(201, { description: 'The subscription, with its signing secret.', schema: WebhookWithSecret }, 'Test or workspace not found (the same answer for one that does not exist and one of another team).'),
      },
    },
    async (request, reply) => reply.code(201).send(await createWebhook(deps, request.caller, request.body)),
  );
}
