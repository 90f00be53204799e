import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from '../access/resource-access.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import type { OpenedMediaStorage } from '../media/storage/open-media-storage.js';
import type { ClipRepository } from '../store/clips.js';
import type { SessionRepository } from '../store/sessions.js';
import type { VideoRepository } from '../store/videos.js';
import type { CompletedSessionPages } from './completed-sessions.js';
import type { StudyNetPromoterScores } from './study-nps.js';

/** Where the family is served: its real base path, and the same paths without the prefix. */
export const LEGACY_PREFIXES = ['/usertesting/api/v1', '/v1'] as const;
export type LegacyPrefix = (typeof LEGACY_PREFIXES)[number];

/** What the family's routes share (one of each per app: caches and the cursor key). */
export interface LegacyDeps {
  access: ResourceAccess;
  completedSessions: CompletedSessionPages;
  netPromoterScores: StudyNetPromoterScores;
  clips: Pick<ClipRepository, 'findClip'>;
  sessions: Pick<SessionRepository, 'sequenceNumber'>;
  videos: Pick<VideoRepository, 'findVideo'>;
  media: OpenedMediaStorage;
}

/** One operation of the family, registered once per prefix (see registerLegacyRoutes). */
export type LegacyRoute = (scope: FastifyInstance, prefix: LegacyPrefix, deps: LegacyDeps) => void;

/**
 * How an operation is documented under `prefix`: under the real base path as the real
 * document names it, without the prefix as a twin named apart (operationIds are unique).
 */
export function legacyOperation(prefix: LegacyPrefix, operation: { summary: string; operationId: string }) {
  const primary = prefix !== '/v1';
  return {
    tags: [TAG.legacy],
    security: API_SECURITY,
    summary: primary ? operation.summary : `${operation.summary} (without the /usertesting/api prefix)`,
    operationId: primary ? operation.operationId : `${operation.operationId}EarlierPath`,
  };
}
