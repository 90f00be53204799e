import type { FastifyInstance } from 'fastify';
import { WEBHOOKS_SECURITY } from '../../docs/security-schemes.js';
import { TAG } from '../../docs/tags.js';
import { apiErrors } from '../../errors.js';
import { Delivery, DeliveryParams, webhookResponses } from '../schemas.js';
import { apiActor, deliveryView, type WebhookDeps } from '../subscriptions.js';

/** POST /api/v2/webhooks/{webhookId}/deliveries/{eventId}/replay: sends one delivery again. */
export function registerWebhookReplayRoute(scope: FastifyInstance, deps: WebhookDeps): void {
  scope.post<{ Params: DeliveryParams }>(
    '/api/v2/webhooks/:webhookId/deliveries/:eventId/replay',
    {
      schema: {
        summary: 'Replay a webhook delivery',
        description:
          'Sends the event to the subscription again, now, with the same webhook-id (a receiver that deduplicates on it sees ' +
          'a repeat). Whether the owner may still see what it names is checked again when it is sent.',
        tags: [TAG.webhooks],
        operationId: 'replayWebhookDelivery',
        security: WEBHOOKS_SECURITY,
        params: DeliveryParams,
        response: webhookResponses(202, { description: 'The delivery, pending.', schema: Delivery }, 'Webhook or delivery not found.'),
      },
    },
    async (request, reply) => {
      const subscription = await deps.access.webhook(request.caller, request.params.webhookId);
      const eventId = request.params.eventId.toLowerCase();
      const replayed = await deps.webhooks.replay(subscription.id, eventId, apiActor(request.caller));
      if (!replayed) throw apiErrors.deliveryNotFound(`delivery ${eventId} of webhook ${subscription.id}`);
      return reply.code(202).send(deliveryView(replayed));
    },
  );
}
