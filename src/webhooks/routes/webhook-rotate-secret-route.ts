import type { FastifyInstance } from 'fastify';
import { WEBHOOKS_SECURITY } from '../../docs/security-schemes.js';
import { TAG } from '../../docs/tags.js';
import { WEBHOOK_NOT_FOUND, webhookResponses, WebhookParams, WebhookWithSecret } from '../schemas.js';
import { apiActor, rotateWebhookSecret, type WebhookDeps } from '../subscriptions.js';

/** POST /api/v2/webhooks/{webhookId}/rotateSecret: a new signing secret, the old one signing on for 24 h. */
export function registerWebhookRotateSecretRoute(scope: FastifyInstance, deps: WebhookDeps): void {
  scope.post<{ Params: WebhookParams }>(
    '/api/v2/webhooks/:webhookId/rotateSecret',
    {
      schema: {
        summary: 'Rotate a webhook signing secret',
        description:
          'Makes a new signing secret, shown this once. For 24 hours (until `previousSecretExpiresAt`) each request carries a ' +
          'signature by both secrets, so the receiver can switch whenever it likes in that time.',
        tags: [TAG.webhooks],
        operationId: 'rotateWebhookSecret',
        security: WEBHOOKS_SECURITY,
        params: WebhookParams,
        response: webhookResponses(200, { description: 'The subscription, with its new secret.', schema: WebhookWithSecret }, WEBHOOK_NOT_FOUND),
      },
    },
    async (request) => {
      const subscription = await deps.access.webhook(request.caller, request.params.webhookId);
      return rotateWebhookSecret(deps.webhooks, subscription, apiActor(request.caller));
    },
  );
}
