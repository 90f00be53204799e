import type { FastifyInstance } from 'fastify';
import { LegacyReel, ReelTokenParams } from './clip-schemas.js';
import { legacyReelView } from './clip-views.js';
import { legacyOperation, type LegacyDeps, type LegacyPrefix } from './legacy-operation.js';
import { legacyResponses } from './responses.js';

/** GET /usertesting/api/v1/highlightreel/{highlightReelToken}: a highlight reel, with embeddable player links. */
export function registerHighlightReelRoute(scope: FastifyInstance, prefix: LegacyPrefix, deps: LegacyDeps): void {
  scope.get<{ Params: ReelTokenParams }>(
    `${prefix}/highlightreel/:highlightReelToken`,
    {
      schema: {
        ...legacyOperation(prefix, { summary: 'A highlight reel, with embeddable player links', operationId: 'getHighlightReel' }),
        params: ReelTokenParams,
        response: legacyResponses(
          { description: 'The highlight reel.', schema: LegacyReel },
          { notFound: 'Highlight reel not found: no such token, or a reel of a test outside the caller\'s workspaces (the same answer).' },
        ),
      },
    },
    async (request) => {
      const reel = await deps.access.reelByToken(request.caller, request.params.highlightReelToken);
      return legacyReelView(deps.media, deps.clips, reel);
    },
  );
}
