import type { FastifyInstance } from 'fastify';
import { WEBHOOKS_SECURITY } from '../../docs/security-schemes.js';
import { TAG } from '../../docs/tags.js';
import { noContentResponses, WEBHOOK_NOT_FOUND, WebhookParams } from '../schemas.js';
import { apiActor, type WebhookDeps } from '../subscriptions.js';

/** DELETE /api/v2/webhooks/{webhookId}: deletes a subscription and its delivery log. */
export function registerWebhookDeleteRoute(scope: FastifyInstance, deps: WebhookDeps): void {
  scope.delete<{ Params: WebhookParams }>(
    '/api/v2/webhooks/:webhookId',
    {
      schema: {
        summary: 'Delete a webhook subscription',
        description: 'Deletes the subscription with its delivery log: nothing more is sent to it, not even deliveries already due.',
        tags: [TAG.webhooks],
        operationId: 'deleteWebhook',
        security: WEBHOOKS_SECURITY,
        params: WebhookParams,
        response: noContentResponses(WEBHOOK_NOT_FOUND),
      },
    },
    async (request, reply) => {
      const subscription = await deps.access.webhook(request.caller, request.params.webhookId);
      await deps.webhooks.delete(subscription.id, apiActor(request.caller));
      return reply.code(204).send();
    },
  );
}
