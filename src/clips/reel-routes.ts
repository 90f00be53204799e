import type { FastifyInstance } from 'fastify';
import type { AccessReads } from '../access/access-cache.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiErrors } from '../errors.js';
import type { OpenedMediaStorage } from '../media/storage/open-media-storage.js';
import { apiResponses, NOT_FOUND } from '../results/responses.js';
import { reelObjectKey } from '../store/reels.js';
import type { Store } from '../store/store.js';
import { CLIP_LINK_SECONDS } from './routes.js';
import { HighlightReelsResponse, ReelDetailsResponse, ReelParams, TestReelsParams } from './schemas.js';

export interface ReelRouteDeps {
  store: Pick<Store, 'reels'>;
  reads: AccessReads;
  media: OpenedMediaStorage;
}

/**
 * The "Video Data" highlight reel operations of the Results API: a test's reels, and one
 * reel's state with a 15-minute download link once it is made. Visibility is the session
 * list's, checked on every request.
 */
export function registerReelRoutes(scope: FastifyInstance, deps: ReelRouteDeps): void {
  scope.get<{ Params: TestReelsParams }>(
    '/api/v2/testResults/:testId/highlightreels',
    {
      schema: {
        summary: 'List the highlight reels of a test',
        description:
          'The test\'s highlight reels, oldest first: name, length, when last changed, how many clips, whether it holds ' +
          'every clip of the test; and whether the test has clips at all. A test that does not exist and one outside ' +
          'the caller\'s workspaces get the same 404.',
        tags: [TAG.videoData],
        operationId: 'TestResultsController_getHighlightReels',
        security: API_SECURITY,
        params: TestReelsParams,
        response: apiResponses(
          { description: 'The test\'s highlight reels.', schema: HighlightReelsResponse },
          { notFound: NOT_FOUND.test },
        ),
      },
    },
    async (request) => {
      const testId = request.params.testId.toLowerCase();
      const test = await deps.reads.findVisibleTest(testId, request.caller.email);
      if (!test) throw apiErrors.testNotFound(`test ${testId} missing or outside the workspaces of ${request.caller.clientId}`);
      const [reels, clipCount] = await Promise.all([deps.store.reels.listReels(testId), deps.store.reels.countClipsOfTest(testId)]);
      return {
        reels: reels.map((r) => ({
          uuid: r.id,
          name: r.name,
          durationMs: r.durationMs,
          lastUpdatedAtMs: r.updatedAt,
          numClips: r.clipIds.length,
          // Clips are never deleted and a reel lists each once: all are in it when the counts agree.
          areAllClipsInReel: clipCount > 0 && r.clipIds.length === clipCount,
        })),
        studyWithClips: clipCount > 0,
      } satisfies HighlightReelsResponse;
    },
  );

  scope.get<{ Params: ReelParams }>(
    '/api/v2/testResults/:testId/highlightreels/:reelId',
    {
      schema: {
        summary: 'Get a highlight reel\'s state and download link',
        description:
          'GENERATING while the reel is being made (ask again every few seconds), GENERATED with a `reelUrl` that ' +
          'downloads it for 15 minutes (ask again for a fresh one), or ERROR when making it failed: that answer also ' +
          'starts a new attempt, so ask again. A reel of a test the caller may not see gets the same 404 as none.',
        tags: [TAG.videoData],
        operationId: 'TestResultsController_getReelDetails',
        security: API_SECURITY,
        params: ReelParams,
        response: apiResponses(
          { description: 'The reel\'s state, and its download link once made.', schema: ReelDetailsResponse },
          { notFound: 'Highlight reel not found: no such reel of this test, or a test the caller may not see (the same answer).' },
        ),
      },
    },
    async (request) => {
      const testId = request.params.testId.toLowerCase();
      const reelId = request.params.reelId.toLowerCase();
      const test = await deps.reads.findVisibleTest(testId, request.caller.email);
      const reel = test && (await deps.store.reels.findReel(reelId));
      if (!reel || reel.testId !== testId) throw apiErrors.reelNotFound(`reel ${reelId} missing, not of test ${testId}, or not visible to ${request.caller.clientId}`);
      if (reel.status === 'ERROR') await deps.store.reels.retryReel(reel.id, { actor: `api:${request.caller.clientId}` });
      if (reel.status !== 'GENERATED') return { reelId: reel.id, status: reel.status, reelUrl: null } satisfies ReelDetailsResponse;
      const link = await deps.media.storage.signedUrl(reelObjectKey(reel.id), { expiresInSeconds: CLIP_LINK_SECONDS });
      return { reelId: reel.id, status: reel.status, reelUrl: link.url } satisfies ReelDetailsResponse;
    },
  );
}
