import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from './access/resource-access.js';
import { registerClipDetailsRoute } from './clips/clip-details-route.js';
import { registerHighlightReelsRoute } from './clips/highlight-reels-route.js';
import { registerReelDetailsRoute } from './clips/reel-details-route.js';
import { registerSessionClipsRoute } from './clips/session-clips-route.js';
import type { SessionDetailsReader } from './details/details-reader.js';
import { registerQxScoresRoute } from './details/qx-scores-route.js';
import { registerSessionDetailsRoute } from './details/session-details-route.js';
import { registerSessionDetailsV2Route } from './details/session-details-v2-route.js';
import { legacyDeps, LEGACY_MEDIA_ROUTES, LEGACY_RESULTS_ROUTES, registerLegacyRoutes } from './legacy/routes.js';
import type { OpenedMediaStorage } from './media/storage/open-media-storage.js';
import { registerVideoDownloadUrlRoute } from './media/video-download-url-route.js';
import { registerSessionResultsRoute } from './results/session-results-route.js';
import { registerSearchRoute } from './search/search-route.js';
import type { SessionPageReader } from './results/session-pages.js';
import type { Store } from './store/open-store.js';
import { registerTranscriptRoute } from './transcripts/transcript-route.js';
import { registerWebhookDeleteRoute } from './webhooks/routes/webhook-delete-route.js';
import { registerWebhookDeliveriesRoute } from './webhooks/routes/webhook-deliveries-route.js';
import { registerWebhookReplayRoute } from './webhooks/routes/webhook-replay-route.js';
import { registerWebhookRotateSecretRoute } from './webhooks/routes/webhook-rotate-secret-route.js';
import { registerWebhookRoute } from './webhooks/routes/webhook-route.js';
import { registerWebhookTestRoute } from './webhooks/routes/webhook-test-route.js';
import { registerWebhookUpdateRoute } from './webhooks/routes/webhook-update-route.js';
import { registerWebhooksCreateRoute } from './webhooks/routes/webhooks-create-route.js';
import { registerWebhooksListRoute } from './webhooks/routes/webhooks-list-route.js';
import type { WebhookDeps } from './webhooks/subscriptions.js';

export interface ApiRouteDeps {
  access: ResourceAccess;
  pages: SessionPageReader;
  store: Store;
  media: OpenedMediaStorage;
  /** Session details and QXscores, with their body cache (shared with the MCP tools). */
  details: SessionDetailsReader;
}

/**
 * Every operation of the Results API and its Legacy (v1) family, in the order the OpenAPI
 * document lists them. Registered in the API guard's scope: each route finds the caller on
 * the request and asks ResourceAccess for what it serves.
 */
export function registerApiRoutes(api: FastifyInstance, deps: ApiRouteDeps): void {
  const { access, store, media, details } = deps;
  const legacy = legacyDeps(deps);
  const generated = { clips: store.clips, reels: store.reels, storage: media.storage };

  registerSessionResultsRoute(api, deps);
  registerLegacyRoutes(api, legacy, LEGACY_RESULTS_ROUTES);
  registerSessionDetailsRoute(api, { access, details });
  registerSessionDetailsV2Route(api, { access, details });
  registerQxScoresRoute(api, { access, details });
  registerTranscriptRoute(api, deps);
  registerVideoDownloadUrlRoute(api, deps);
  registerSessionClipsRoute(api, deps);
  registerClipDetailsRoute(api, { access, generated });
  registerHighlightReelsRoute(api, deps);
  registerReelDetailsRoute(api, { access, generated });
  registerLegacyRoutes(api, legacy, LEGACY_MEDIA_ROUTES);
  registerSearchRoute(api, { access, search: store.search, sessionDetails: store.sessionDetails });
}

/**
 * The webhooks extension (issue 35), after the Results API in the document. Registered in a
 * scope whose API guard asks for webhooks:manage instead of a read scope.
 */
export function registerWebhookApiRoutes(api: FastifyInstance, deps: WebhookDeps): void {
  registerWebhooksCreateRoute(api, deps);
  registerWebhooksListRoute(api, deps);
  registerWebhookRoute(api, deps);
  registerWebhookUpdateRoute(api, deps);
  registerWebhookDeleteRoute(api, deps);
  registerWebhookRotateSecretRoute(api, deps);
  registerWebhookTestRoute(api, deps);
  registerWebhookDeliveriesRoute(api, deps);
  registerWebhookReplayRoute(api, deps);
}
