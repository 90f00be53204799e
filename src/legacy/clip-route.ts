import type { FastifyInstance } from 'fastify';
import { ClipUuidParams, LegacyClip } from './clip-schemas.js';
import { legacyClipView } from './clip-views.js';
import { legacyOperation, type LegacyDeps, type LegacyPrefix } from './legacy-operation.js';
import { legacyResponses } from './responses.js';

/** GET /usertesting/api/v1/clip/{clipUuid}: a clip, with an embeddable player link (src/clips/player.ts). */
export function registerClipRoute(scope: FastifyInstance, prefix: LegacyPrefix, deps: LegacyDeps): void {
  scope.get<{ Params: ClipUuidParams }>(
    `${prefix}/clip/:clipUuid`,
    {
      schema: {
        ...legacyOperation(prefix, { summary: 'A clip, with an embeddable player link', operationId: 'getClip' }),
        params: ClipUuidParams,
        response: legacyResponses(
          { description: 'The clip.', schema: LegacyClip },
          { notFound: 'Clip not found: no such clip, or one of a test outside the caller\'s workspaces (the same answer).' },
        ),
      },
    },
    async (request) => {
      const { clip, test } = await deps.access.clip(request.caller, request.params.clipUuid);
      return legacyClipView(deps.media, clip, test);
    },
  );
}
