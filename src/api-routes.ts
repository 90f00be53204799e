import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from './access/resource-access.js';
import { registerClipDetailsRoute } from './clips/clip-details-route.js';
import { registerHighlightReelsRoute } from './clips/highlight-reels-route.js';
import { registerReelDetailsRoute } from './clips/reel-details-route.js';
import { registerSessionClipsRoute } from './clips/session-clips-route.js';
import { SessionDetailsReader } from './details/details-reader.js';
import { registerQxScoresRoute } from './details/qx-scores-route.js';
import { registerSessionDetailsRoute } from './details/session-details-route.js';
import { legacyDeps, LEGACY_MEDIA_ROUTES, LEGACY_RESULTS_ROUTES, registerLegacyRoutes } from './legacy/routes.js';
import type { OpenedMediaStorage } from './media/storage/open-media-storage.js';
import { registerVideoDownloadUrlRoute } from './media/video-download-url-route.js';
import { registerSessionResultsRoute } from './results/session-results-route.js';
import type { SessionPageReader } from './results/session-pages.js';
import type { Store } from './store/open-store.js';
import { registerTranscriptRoute } from './transcripts/transcript-route.js';

export interface ApiRouteDeps {
  access: ResourceAccess;
  pages: SessionPageReader;
  store: Store;
  media: OpenedMediaStorage;
}

/**
 * Every operation of the Results API and its Legacy (v1) family, in the order the OpenAPI
 * document lists them. Registered in the API guard's scope: each route finds the caller on
 * the request and asks ResourceAccess for what it serves.
 */
export function registerApiRoutes(api: FastifyInstance, deps: ApiRouteDeps): void {
  const { access, store, media } = deps;
  const details = new SessionDetailsReader(access, store.sessionDetails, deps.pages.watcher, deps.pages.clock);
  const legacy = legacyDeps(deps);
  const generated = { clips: store.clips, reels: store.reels, storage: media.storage };

  registerSessionResultsRoute(api, deps);
  registerLegacyRoutes(api, legacy, LEGACY_RESULTS_ROUTES);
  registerSessionDetailsRoute(api, { access, details });
  registerQxScoresRoute(api, { access, details });
  registerTranscriptRoute(api, deps);
  registerVideoDownloadUrlRoute(api, deps);
  registerSessionClipsRoute(api, deps);
  registerClipDetailsRoute(api, { access, generated });
  registerHighlightReelsRoute(api, deps);
  registerReelDetailsRoute(api, { access, generated });
  registerLegacyRoutes(api, legacy, LEGACY_MEDIA_ROUTES);
}
