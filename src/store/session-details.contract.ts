/**
 * The session details repository's contract, run unchanged on every database (wired into
 * sqlite-database.test.ts and postgres-database.test.ts beside the store contract).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import type { Change } from '../changes/change-feed.js';
import { StoreConflictError } from './conflicts.js';
import type { Announce } from './database.js';
import type { Store } from './open-store.js';
import type { SessionInput } from './store.js';

const admin = { actor: 'cli:admin' };
const id = (n: number, prefix = '5e55de7a') => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const document = (value: number) => ({ participant: null, taskGroups: [], tasks: [{ taskId: id(1, 'aaaaaaaa'), startTimeMs: 0, endTimeMs: 5, skipped: false, answer: { value } }] });
const scoring = (value: number) => [[id(1, 'aaaaaaaa'), 0, value]];
const details = (value: number) => ({ document: document(value), scoring: scoring(value) });
const session = (n: number, extra: Partial<SessionInput> = {}): SessionInput => ({
  sessionId: id(n),
  audienceId: null,
  status: 'COMPLETE',
  startTime: Date.UTC(2024, 0, 1, 0, n),
  finishTime: null,
  ...extra,
});

export function describeSessionDetailsContract(name: string, makeStore: (clock: ManualClock, announce: Announce) => Promise<Store>): void {
  describe(`Session details contract: ${name}`, () => {
    let store: Store;
    let announced: Change[];
    const testId = id(1, 'eeeeeee0');

    beforeEach(async () => {
      announced = [];
      store = await makeStore(new ManualClock(Date.UTC(2026, 0, 1)), async (change) => void announced.push(change));
      await store.database.migrate();
      await store.directory.createWorkspace({ id: id(1, 'ccccccc0'), name: 'W' }, admin);
      await store.directory.createTest({ id: testId, workspaceId: id(1, 'ccccccc0'), title: 'T', productType: 'SURVEY' }, admin);
      await store.directory.createTest({ id: id(2, 'eeeeeee0'), workspaceId: id(1, 'ccccccc0'), title: 'U', productType: 'SURVEY' }, admin);
    });
    afterEach(() => store.database.close());

    it('details arrive with their sessions; none is null', async () => {
      await store.sessions.importSessions(testId, [session(1, { details: details(3) }), session(2)], admin);
      expect(await store.sessionDetails.findDetails(id(1))).toEqual(document(3));
      expect(await store.sessionDetails.findDetails(id(2))).toBeNull();
      expect(await store.sessionDetails.findDetails(id(9))).toBeNull();
      expect(announced).toContainEqual({ topic: 'sessions', testId });
    });

    it('a re-import replaces them (the last copy in a batch wins); a record without details keeps them', async () => {
      await store.sessions.importSessions(testId, [session(1, { details: details(1) })], admin);
      await store.sessions.importSessions(testId, [session(1, { details: details(2) }), session(1, { details: details(4) })], admin);
      expect(await store.sessionDetails.findDetails(id(1))).toEqual(document(4));
      await store.sessions.importSessions(testId, [session(1)], admin);
      expect(await store.sessionDetails.findDetails(id(1))).toEqual(document(4));
    });

    it('the completed sessions\' details of a test, and only those', async () => {
      await store.sessions.importSessions(
        testId,
        [session(1, { details: details(1) }), session(2, { status: 'IN_PROGRESS', details: details(2) }), session(3, { details: details(3) }), session(4)],
        admin,
      );
      await store.sessions.importSessions(id(2, 'eeeeeee0'), [session(5, { details: details(5) })], admin);
      expect(await store.sessionDetails.listCompletedScoring(testId)).toEqual([scoring(1), scoring(3)]);
      // A session that stops being complete leaves the list.
      await store.sessions.importSessions(testId, [session(3, { status: 'ABANDONED' })], admin);
      expect(await store.sessionDetails.listCompletedScoring(testId)).toEqual([scoring(1)]);
    });

    it('the details of a page of sessions in one call, by session id; sessions without details left out', async () => {
      await store.sessions.importSessions(testId, [session(1, { details: details(1) }), session(2), session(3, { details: details(3) })], admin);
      await store.sessions.importSessions(id(2, 'eeeeeee0'), [session(5, { details: details(5) })], admin);
      const found = await store.sessionDetails.listDetails([id(3), id(2), id(1), id(5), id(9)]);
      expect(new Map([...found].sort(([a], [b]) => a.localeCompare(b)))).toEqual(
        new Map([
          [id(1), document(1)],
          [id(3), document(3)],
          [id(5), document(5)],
        ]),
      );
      expect(await store.sessionDetails.listDetails([])).toEqual(new Map());
    });

    it('all or nothing: a refused import (a session of another test) writes no details', async () => {
      await store.sessions.importSessions(id(2, 'eeeeeee0'), [session(5)], admin);
      const error = await store.sessions
        .importSessions(testId, [session(1, { details: details(1) }), session(5, { details: details(5) })], admin)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreConflictError);
      expect(await store.sessionDetails.findDetails(id(1))).toBeNull();
      expect(await store.sessionDetails.findDetails(id(5))).toBeNull();
    });

    it('more sessions than one statement writes', async () => {
      const many = Array.from({ length: 450 }, (_, i) => session(100 + i, { details: details(i) }));
      await store.sessions.importSessions(testId, many, admin);
      expect(await store.sessionDetails.listCompletedScoring(testId)).toHaveLength(450);
      expect(await store.sessionDetails.findDetails(id(549))).toEqual(document(449));
    });
  });
}
