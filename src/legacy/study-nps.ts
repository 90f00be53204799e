import { FreshCache, type ChangeWatcher } from '../changes/fresh-cache.js';
import type { Clock } from '../clock.js';
import type { ScoringRow } from '../details/session-details.js';
import type { SessionDetailsRepository } from '../store/session-details.js';
import type { Test } from '../store/store.js';
import { netPromoterScores, type NetPromoterScore } from './answers.js';

/**
 * A study's Net Promoter Scores, computed from the scoring rows of its completed sessions and
 * cached like the QXscores (src/details/details-reader.ts): dropped on any change (an import
 * included). Visibility is checked by the caller, never cached here.
 */
export class StudyNetPromoterScores {
  private readonly scores: FreshCache<NetPromoterScore[]>;

  constructor(
    private readonly sessionDetails: Pick<SessionDetailsRepository, 'listCompletedScoring'>,
    watcher: ChangeWatcher,
    clock: Clock,
  ) {
    this.scores = new FreshCache(watcher, clock);
  }

  of(test: Test): Promise<NetPromoterScore[]> {
    // Without an NPS task there is nothing to read.
    if (!test.plan?.tasks.some((task) => task.taskType === 'nps')) return Promise.resolve([]);
    return this.scores.get(test.id, async () =>
      netPromoterScores(test.plan, (await this.sessionDetails.listCompletedScoring(test.id)) as ScoringRow[][]),
    );
  }
}
