import type { WebhookEventData, WebhookEventType } from '../store/webhook-events.js';

/** What a receiver gets: the event's type and time, the ids it names and where to read them. */
export interface WebhookEnvelope {
  type: WebhookEventType;
  /** When the change happened (RFC 3339). */
  timestamp: string;
  data: WebhookEventData & { links: Record<string, string> };
}

/** Where each id of an event can be read, with the receiver's own token. */
function linksOf(type: WebhookEventType, d: WebhookEventData, baseUrl: string): Record<string, string> {
  const api = `${baseUrl}/api`;
  const session = d.sessionId && `${api}/v2/sessionResults/${d.sessionId}`;
  switch (type) {
    case 'session.completed':
      return { session: `${api}/v3/sessionResults/${d.sessionId}`, sessionResults: `${api}/v2/sessionResults?testId=${d.testId}` };
    case 'transcript.ready':
      return { transcript: `${session}/transcript` };
    case 'video.ready':
      return { videoDownloadUrl: `${session}/videoDownloadUrl` };
    case 'clip.generated':
      return { clip: `${session}/clips/${d.clipUuid}` };
    case 'highlightreel.generated':
      return { highlightReel: `${api}/v2/testResults/${d.testId}/highlightreels/${d.reelId}` };
    case 'qxscores.updated':
      return { qxScores: `${api}/v2/testResults/${d.testId}/qxScores` };
    case 'webhook.test':
      return { webhook: `${api}/v2/webhooks/${d.webhookId}` };
  }
}

/** The request body of every attempt of an event: the same bytes each time, so the same signature input. */
export function envelopeBody(type: WebhookEventType, createdAt: number, data: WebhookEventData, baseUrl: string): string {
  const envelope: WebhookEnvelope = { type, timestamp: new Date(createdAt).toISOString(), data: { ...data, links: linksOf(type, data, baseUrl) } };
  return JSON.stringify(envelope);
}
