import type { SessionDetails } from '../details/session-details.js';
import type { MediaStorage } from '../media/storage/media-storage.js';
import { sessionMediaOf, type AnswerMediaStore } from './answer-media.js';
import type { SessionPageReader } from '../results/session-pages.js';
import type { SessionDetailsRepository } from '../store/session-details.js';
import type { SessionRepository } from '../store/sessions.js';
import type { SettingsRepository } from '../store/settings.js';
import type { Test } from '../store/store.js';
import { SessionCursors } from './cursor.js';
import { pageFrom } from './page-from.js';
import { COMPLETED_PAGE_SIZE, type CompletedSessionsQuery } from './schemas.js';
import { completedSessionView } from './views.js';

export interface CompletedSessionStore extends AnswerMediaStore {
  sessions: Pick<SessionRepository, 'listCompletedSessions' | 'mediaOf'>;
  sessionDetails: Pick<SessionDetailsRepository, 'listDetails'>;
  settings: Pick<SettingsRepository, 'getOrSet'>;
}

/** Pages of a study's completed sessions by keyset cursor: pages never shift while sessions arrive. */
export class CompletedSessionPages {
  private cursors: Promise<SessionCursors> | undefined;

  constructor(
    private readonly store: CompletedSessionStore,
    private readonly pages: Pick<SessionPageReader, 'count'>,
    private readonly storage: MediaStorage,
  ) {}

  /** One page of a study the caller may see, from its start or from a cursor this listing issued for it. */
  async page(test: Test, query: CompletedSessionsQuery) {
    const from = pageFrom(query);
    const signer = await this.loadCursors();
    const at = from && { key: signer.decode(from.direction, from.cursor, test.id), direction: from.direction };
    const [sessions, completedSessionCount] = await Promise.all([
      this.store.sessions.listCompletedSessions(test.id, COMPLETED_PAGE_SIZE, at),
      this.pages.count(test.id),
    ]);
    // The page's details in one query, however many sessions it holds.
    const ids = sessions.map((s) => s.sessionId);
    const [details, media] = await Promise.all([this.store.sessionDetails.listDetails(ids), sessionMediaOf(this.store, this.storage, ids)]);
    return {
      completedSessionCount,
      sessions: sessions.map((s) =>
        completedSessionView(signer, s, test, (details.get(s.sessionId) as SessionDetails | undefined) ?? null, media.get(s.sessionId)),
      ),
    };
  }

  /** The signing key is read (or generated) on first use, once per process. */
  private loadCursors(): Promise<SessionCursors> {
    return (this.cursors ??= SessionCursors.load(this.store.settings).catch((e: unknown) => {
      this.cursors = undefined;
      throw e;
    }));
  }
}
