import type { FastifyInstance } from 'fastify';
import { WEBHOOKS_SECURITY } from '../../docs/security-schemes.js';
import { TAG } from '../../docs/tags.js';
import { TestEvent, WEBHOOK_NOT_FOUND, webhookResponses, WebhookParams } from '../schemas.js';
import { apiActor, type WebhookDeps } from '../subscriptions.js';

/** POST /api/v2/webhooks/{webhookId}/test: queues a webhook.test event. */
export function registerWebhookTestRoute(scope: FastifyInstance, deps: WebhookDeps): void {
  scope.post<{ Params: WebhookParams }>(
    '/api/v2/webhooks/:webhookId/test',
    {
      schema: {
        summary: 'Send a test event',
        description: 'Queues a `webhook.test` event for the subscription (whatever events it asked for); follow it in the delivery log.',
        tags: [TAG.webhooks],
        operationId: 'sendWebhookTest',
        security: WEBHOOKS_SECURITY,
        params: WebhookParams,
        response: webhookResponses(202, { description: 'The event queued.', schema: TestEvent }, WEBHOOK_NOT_FOUND),
      },
    },
    async (request, reply) => {
      const subscription = await deps.access.webhook(request.caller, request.params.webhookId);
      return reply.code(202).send({ eventId: await deps.webhooks.sendTest(subscription.id, apiActor(request.caller)) });
    },
  );
}
