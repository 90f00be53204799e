import type { AccessReads } from '../access/access-cache.js';
import type { Caller } from '../access/caller.js';
import type { ResourceAccess } from '../access/resource-access.js';
import { ApiProblem } from '../errors.js';
import type { ClaimedDelivery } from '../store/webhook-deliveries.js';

/**
 * Whether the subscription's owner may still see what a delivery's event names, asked of
 * ResourceAccess as the owner's own request would be (the rule lives there): the credential
 * that made the subscription must be unrevoked and its user active, and the event's session,
 * transcript, video, clip, reel or test must lie in one of the user's workspaces. Resolves to
 * why not, or null when it may.
 */
export async function whyNotVisible(access: ResourceAccess, reads: Pick<AccessReads, 'findPrincipal'>, d: ClaimedDelivery): Promise<string | null> {
  const caller: Caller | null = await reads.findPrincipal(d.clientId);
  if (!caller) return "the subscription's credential was revoked or its user disabled";
  const { sessionId, testId, clipUuid, reelId } = d.eventData;
  try {
    switch (d.eventType) {
      case 'session.completed':
        await access.session(caller, sessionId!);
        break;
      case 'transcript.ready':
        await access.transcript(caller, sessionId!);
        break;
      case 'video.ready':
        await access.video(caller, sessionId!);
        break;
      case 'clip.generated':
        await access.clip(caller, clipUuid!);
        break;
      case 'highlightreel.generated':
        await access.reel(caller, testId!, reelId!);
        break;
      case 'qxscores.updated':
        await access.test(caller, testId!, 'studies');
        break;
      case 'webhook.test':
        break;
    }
  } catch (err) {
    if (err instanceof ApiProblem) return `what the event names is not visible to the subscription's owner (${err.detail})`;
    throw err;
  }
  return null;
}
