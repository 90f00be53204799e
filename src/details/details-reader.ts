import type { Clock } from '../clock.js';
import { FreshCache, type ChangeWatcher } from '../changes/fresh-cache.js';
import type { AccessReads } from '../access/access-cache.js';
import type { Caller } from '../access/authenticate-request.js';
import { apiErrors } from '../errors.js';
import { bodyBytes, sameBytes } from '../http/body-bytes.js';
import type { SessionDetailsRepository } from '../store/session-details.js';
import type { SessionRepository } from '../store/sessions.js';
import type { Session } from '../store/store.js';
import { computeQxScores, qxGroupsOf } from './qx-score.js';
import type { QxScoreResponse, SessionResultsV3Response } from './schemas.js';
import type { ScoringRow, SessionDetails } from './session-details.js';
import { sessionResultsView } from './session-results-view.js';

/** Serialized bodies kept per process (details of ~10,000 sessions at ~2 KB each). */
const BODY_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * Reads session details and QXscores for the API. The serialized bodies are cached like the
 * list's pages (FreshCache: dropped on any change, an import included); visibility is never
 * cached with them: every request asks whether the caller is a member of the test's workspace
 * (AccessReads, itself dropped on any change of access).
 */
export class SessionDetailsReader {
  /** Which test each session belongs to (null: no such session). */
  private readonly sessions: FreshCache<Session | null>;
  private readonly bodies: FreshCache<Buffer>;

  constructor(
    private readonly store: {
      sessions: Pick<SessionRepository, 'findSession'>;
      sessionDetails: Pick<SessionDetailsRepository, 'findDetails' | 'listCompletedScoring'>;
    },
    private readonly reads: Pick<AccessReads, 'findVisibleTest'>,
    watcher: ChangeWatcher,
    clock: Clock,
  ) {
    this.sessions = new FreshCache(watcher, clock);
    this.bodies = new FreshCache(watcher, clock, { maxSize: BODY_CACHE_BYTES, sizeOf: (body) => body.length, sameValue: sameBytes });
  }

  /**
   * The body of GET /api/v3/sessionResults/{sessionId}. A missing session and one whose test
   * is outside the caller's workspaces get the same 404.
   */
  async sessionResults(caller: Caller, sessionId: string, serialize: (body: SessionResultsV3Response) => string): Promise<Buffer> {
    const session = await this.sessions.get(sessionId, () => this.store.sessions.findSession(sessionId));
    const test = session ? await this.reads.findVisibleTest(session.testId, caller.email) : null;
    if (!session || !test) throw apiErrors.sessionNotFound(`session ${sessionId} missing or outside the workspaces of ${caller.clientId}`);
    return this.bodies.get(`session ${sessionId}`, async () => {
      const details = (await this.store.sessionDetails.findDetails(sessionId)) as SessionDetails | null;
      return bodyBytes(serialize(sessionResultsView(session, test, details)));
    });
  }

  /** The body of GET /api/v2/testResults/{testId}/qxScores, computed from the completed sessions' answers. */
  async qxScoreBody(caller: Caller, testId: string, serialize: (body: QxScoreResponse) => string): Promise<Buffer> {
    const test = await this.reads.findVisibleTest(testId, caller.email);
    if (!test) throw apiErrors.testNotFound(`test ${testId} missing or outside the workspaces of ${caller.clientId}`);
    return this.bodies.get(`qx ${test.id}`, async () => {
      const sessions = (await this.store.sessionDetails.listCompletedScoring(test.id)) as ScoringRow[][];
      const qxScores = computeQxScores(test.plan, sessions);
      return bodyBytes(serialize({ testId: test.id, qxScores, meta: { totalQxTasks: qxGroupsOf(test.plan).length, completes: sessions.length } }));
    });
  }
}
