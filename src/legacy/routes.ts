import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from '../access/resource-access.js';
import type { ChangeWatcher } from '../changes/fresh-cache.js';
import type { Clock } from '../clock.js';
import type { OpenedMediaStorage } from '../media/storage/open-media-storage.js';
import type { SessionPageReader } from '../results/session-pages.js';
import type { Store } from '../store/open-store.js';
import { registerClipRoute } from './clip-route.js';
import { CompletedSessionPages } from './completed-sessions.js';
import { registerCompletedSessionsRoute } from './completed-sessions-route.js';
import { registerHighlightReelRoute } from './highlight-reel-route.js';
import { LEGACY_PREFIXES, type LegacyDeps, type LegacyRoute } from './legacy-operation.js';
import { registerSessionRoute } from './session-route.js';
import { StudyNetPromoterScores } from './study-nps.js';
import { registerStudyRoute } from './study-route.js';
import { registerWorkspaceStudiesRoute } from './workspace-studies-route.js';
import { registerWorkspacesRoute } from './workspaces-route.js';

/**
 * The Legacy (v1) family: discovery of workspaces and their tests ("studies"), a test's plan,
 * its completed sessions by keyset cursor, one session; and a clip or highlight reel with
 * embeddable player links. Who may see what is ResourceAccess's; errors are rendered in the
 * family's `{errorCode, errorMessage}` (./errors.ts).
 */
export const LEGACY_RESULTS_ROUTES: readonly LegacyRoute[] = [
  registerWorkspacesRoute,
  registerWorkspaceStudiesRoute,
  registerStudyRoute,
  registerCompletedSessionsRoute,
  registerSessionRoute,
];
export const LEGACY_MEDIA_ROUTES: readonly LegacyRoute[] = [registerClipRoute, registerHighlightReelRoute];

/** What the family's routes share, made once per app. */
export function legacyDeps(deps: {
  access: ResourceAccess;
  store: Pick<Store, 'sessions' | 'sessionDetails' | 'settings' | 'clips' | 'transcripts' | 'videos'>;
  pages: Pick<SessionPageReader, 'count'> & { watcher: ChangeWatcher; clock: Clock };
  media: OpenedMediaStorage;
}): LegacyDeps {
  return {
    access: deps.access,
    completedSessions: new CompletedSessionPages(deps.store, deps.pages, deps.media.storage),
    netPromoterScores: new StudyNetPromoterScores(deps.store.sessionDetails, deps.pages.watcher, deps.pages.clock),
    clips: deps.store.clips,
    sessions: deps.store.sessions,
    videos: deps.store.videos,
    media: deps.media,
  };
}

/** Registers each of `routes` under the family's real base path, then each again without the prefix. */
export function registerLegacyRoutes(scope: FastifyInstance, deps: LegacyDeps, routes: readonly LegacyRoute[]): void {
  for (const prefix of LEGACY_PREFIXES) {
    for (const register of routes) register(scope, prefix, deps);
  }
}
