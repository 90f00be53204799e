import type { Clock } from '../clock.js';
import { FreshCache, type ChangeWatcher } from '../changes/fresh-cache.js';
import type { ResourceAccess, VisibleSession } from '../access/resource-access.js';
import { bodyBytes, sameBytes } from '../http/body-bytes.js';
import type { SessionDetailsRepository } from '../store/session-details.js';
import type { Test } from '../store/store.js';
import { computeQxScores, qxGroupsOf } from './qx-score.js';
import type { QxScoreResponse, SessionResultsBody } from './schemas.js';
import type { ScoringRow, SessionDetails } from './session-details.js';
import { sessionResultsView, type DetailsVocabulary } from './session-results-view.js';

/** Serialized bodies kept per process (details of ~10,000 sessions at ~2 KB each). */
const BODY_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * Reads session details and QXscores for the API, of a session or test the caller may see
 * (ResourceAccess decides, on every request). The serialized bodies are cached like the list's
 * pages (FreshCache: dropped on any change, an import included); visibility is never cached
 * with them.
 */
export class SessionDetailsReader {
  private readonly bodies: FreshCache<Buffer>;

  constructor(
    private readonly access: Pick<ResourceAccess, 'detailsOf'>,
    private readonly sessionDetails: Pick<SessionDetailsRepository, 'listCompletedScoring'>,
    watcher: ChangeWatcher,
    clock: Clock,
  ) {
    this.bodies = new FreshCache(watcher, clock, { maxSize: BODY_CACHE_BYTES, sizeOf: (body) => body.length, sameValue: sameBytes });
  }

  /** The body of GET /api/v3/sessionResults/{sessionId}, or in the help centre's vocabulary of GET /api/v2/sessionResults/{sessionId}. */
  sessionResults(visible: VisibleSession, vocabulary: DetailsVocabulary, serialize: (body: SessionResultsBody) => string): Promise<Buffer> {
    return this.bodies.get(`session ${vocabulary} ${visible.session.sessionId}`, async () => {
      const details = (await this.access.detailsOf(visible)) as SessionDetails | null;
      return bodyBytes(serialize(sessionResultsView(visible.session, visible.test, details, vocabulary)));
    });
  }

  /** The body of GET /api/v2/testResults/{testId}/qxScores, computed from the completed sessions' answers. */
  qxScoreBody(test: Test, serialize: (body: QxScoreResponse) => string): Promise<Buffer> {
    return this.bodies.get(`qx ${test.id}`, async () => bodyBytes(serialize(await this.qxScores(test))));
  }

  /** The QXscores of a test, computed from its completed sessions' answers (what qxScoreBody serializes). */
  async qxScores(test: Test): Promise<QxScoreResponse> {
    const sessions = (await this.sessionDetails.listCompletedScoring(test.id)) as ScoringRow[][];
    const qxScores = computeQxScores(test.plan, sessions);
    return { testId: test.id, qxScores, meta: { totalQxTasks: qxGroupsOf(test.plan).length, completes: sessions.length } };
  }
}
