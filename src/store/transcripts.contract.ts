/**
 * The transcript repository's contract, run unchanged on every database (wired in beside the
 * store contract). `makeStore` is as for describeStoreContract: an unmigrated store over a
 * fresh, empty database.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import type { Change } from '../changes/change-feed.js';
import { StoreConflictError } from './conflicts.js';
import type { Announce } from './database.js';
import type { Store } from './open-store.js';
import type { SessionInput } from './store.js';
import { MAX_CUES_READ } from './transcripts.js';
import { BadTranscriptError } from './webvtt.js';

const admin = { actor: 'cli:admin' };
const T0 = Date.UTC(2026, 0, 1);
const W = 'c0000000-0000-4000-8000-000000000001';
const T1 = 'e0000000-0000-4000-8000-000000000001';
const T2 = 'e0000000-0000-4000-8000-000000000002';
const sessionId = (n: number) => `5e551000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const session = (n: number, startTime = T0 + n * 60_000): SessionInput => ({
  sessionId: sessionId(n),
  audienceId: null,
  status: 'COMPLETE',
  startTime,
  finishTime: startTime + 30_000,
});
const vtt = (words: string) => `WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n${words}\n`;
const stamp = (ms: number) => new Date(ms).toISOString().slice(11, 23);
/** A transcript of `count` cues, the i-th from i s to i s + 900 ms saying `w<i>`. */
const longVtt = (count: number) =>
  `WEBVTT\n\n${Array.from({ length: count }, (_, i) => `${stamp(i * 1000)} --> ${stamp(i * 1000 + 900)}\nw${i}`).join('\n\n')}\n`;
const cueOf = (i: number) => ({ startMs: i * 1000, endMs: i * 1000 + 900, text: `w${i}` });
const cuesFrom = (from: number, count: number) => Array.from({ length: count }, (_, i) => cueOf(from + i));

export function describeTranscriptContract(name: string, makeStore: (clock: ManualClock, announce: Announce) => Promise<Store>): void {
  describe(`Transcript contract: ${name}`, () => {
    let store: Store;
    let announced: Change[];

    beforeEach(async () => {
      announced = [];
      store = await makeStore(new ManualClock(T0), async (change) => void announced.push(change));
      await store.database.migrate();
      await store.directory.createWorkspace({ id: W, name: 'W' }, admin);
      for (const id of [T1, T2]) await store.directory.createTest({ id, workspaceId: W, title: id, productType: 'THINK_OUT_LOUD' }, admin);
      await store.sessions.importSessions(T1, [session(1), session(2), session(3)], admin);
      await store.sessions.importSessions(T2, [session(9)], admin);
      announced.length = 0;
    });
    afterEach(async () => {
      await store.database.close();
    });

    const transcriptActions = async () => (await store.audit.list({ action: 'transcripts' })).map((e) => [e.action, e.subject, e.details]);

    it('stores transcripts and finds each with its test; a session without one has none', async () => {
      const result = await store.transcripts.importTranscripts(
        T1,
        [
          { sessionId: sessionId(1), vtt: vtt('one') },
          { sessionId: sessionId(2), vtt: vtt('two') },
        ],
        admin,
      );
      expect(result).toEqual({ inserted: 2, updated: 0, unchanged: 0 });
      expect(await store.transcripts.findTranscript(sessionId(1))).toEqual({ testId: T1, vtt: vtt('one') });
      expect(await store.transcripts.findTranscript(sessionId(2))).toEqual({ testId: T1, vtt: vtt('two') });
      expect(await store.transcripts.findTranscript(sessionId(3))).toBeNull();
      expect(await store.transcripts.findTranscript(sessionId(404))).toBeNull();
      expect(announced).toEqual([{ topic: 'sessions', testId: T1 }]);
      expect(await transcriptActions()).toEqual([['transcripts.import', T1, { inserted: 2, updated: 0, unchanged: 0 }]]);
    });

    it('is idempotent: the same text again changes, audits and announces nothing; new text replaces the old', async () => {
      const first = [{ sessionId: sessionId(1), vtt: vtt('one') }];
      await store.transcripts.importTranscripts(T1, first, admin);
      announced.length = 0;
      expect(await store.transcripts.importTranscripts(T1, first, admin)).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
      expect(announced).toEqual([]);
      expect(await transcriptActions()).toHaveLength(1);

      const again = [...first, { sessionId: sessionId(2), vtt: vtt('two') }, { sessionId: sessionId(1), vtt: vtt('one, corrected') }];
      expect(await store.transcripts.importTranscripts(T1, again, admin)).toEqual({ inserted: 1, updated: 1, unchanged: 1 });
      expect((await store.transcripts.findTranscript(sessionId(1)))?.vtt).toBe(vtt('one, corrected'));
      expect(announced).toEqual([{ topic: 'sessions', testId: T1 }]);
    });

    it('writes an import of more transcripts than one round of statements: each with its cues and search entries', async () => {
      const many = Array.from({ length: 620 }, (_, i) => session(100 + i));
      await store.sessions.importSessions(T1, many, admin);
      const transcripts = many.map((s, i) => ({ sessionId: s.sessionId, vtt: vtt(`word${i} shared`) }));
      expect(await store.transcripts.importTranscripts(T1, transcripts, admin)).toEqual({ inserted: 620, updated: 0, unchanged: 0 });
      for (const i of [0, 499, 500, 619]) {
        expect(await store.transcripts.readCues(sessionId(100 + i), 0, 10)).toEqual({ cueCount: 1, cues: [{ startMs: 0, endMs: 2000, text: `word${i} shared` }] });
        const hits = await store.search.search([`word${i}`], { testIds: [T1], kinds: ['transcript'] }, 0, 10);
        expect(hits.map((h) => h.sessionId)).toEqual([sessionId(100 + i)]);
      }
      expect(await store.transcripts.importTranscripts(T1, transcripts, admin)).toEqual({ inserted: 0, updated: 0, unchanged: 620 });
    });

    it("searches within one test whatever its id holds: quotes and backslashes are the query's text, not its syntax", async () => {
      // Entry points accept UUIDs only; the store does not rely on it.
      const odd = `e0000000-0000-4000-8000-00000000000' "x\\ y"`;
      await store.directory.createTest({ id: odd, workspaceId: W, title: 'Odd', productType: 'THINK_OUT_LOUD' }, admin);
      await store.sessions.importSessions(odd, [session(50)], admin);
      await store.transcripts.importTranscripts(odd, [{ sessionId: sessionId(50), vtt: vtt('checkout button') }], admin);
      await store.transcripts.importTranscripts(T1, [{ sessionId: sessionId(1), vtt: vtt('checkout page') }], admin);
      const hits = await store.search.search(['checkout'], { testIds: [odd], kinds: ['transcript'] }, 0, 10);
      expect(hits.map((h) => [h.testId, h.sessionId])).toEqual([[odd, sessionId(50)]]);
    });

    it('all or nothing: a session of another test, or of none, refuses the whole import', async () => {
      for (const stranger of [sessionId(9), sessionId(404)]) {
        const error = await store.transcripts
          .importTranscripts(
            T1,
            [
              { sessionId: sessionId(1), vtt: vtt('one') },
              { sessionId: stranger, vtt: vtt('not here') },
            ],
            admin,
          )
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StoreConflictError);
        expect((error as StoreConflictError).message).toBe(`test ${T1} has no session ${stranger} (import the session first)`);
      }
      expect(await store.transcripts.findTranscript(sessionId(1))).toBeNull();
      expect(announced).toEqual([]);
      expect(await transcriptActions()).toEqual([]);
    });

    it('refuses a test that does not exist', async () => {
      const error = await store.transcripts.importTranscripts('e0000000-0000-4000-8000-0000000000ff', [], admin).catch((e: unknown) => e);
      expect((error as StoreConflictError).code).toBe('not_found');
    });

    it('a failing source (a bad file found late) leaves nothing behind', async () => {
      async function* source() {
        yield { sessionId: sessionId(1), vtt: vtt('one') };
        throw new Error('file 2 is unreadable');
      }
      await expect(store.transcripts.importTranscripts(T1, source(), admin)).rejects.toThrow('file 2 is unreadable');
      expect(await store.transcripts.findTranscript(sessionId(1))).toBeNull();
      expect(announced).toEqual([]);
    });

    it('stores the cues at import and reads them a stretch at a time, in file order, across pages', async () => {
      await store.transcripts.importTranscripts(T1, [{ sessionId: sessionId(1), vtt: longVtt(1450) }], admin);
      expect(await store.transcripts.cueCount(sessionId(1))).toBe(1450);
      expect(await store.transcripts.readCues(sessionId(1), 0, 3)).toEqual({ cueCount: 1450, cues: cuesFrom(0, 3) });
      expect(await store.transcripts.readCues(sessionId(1), 198, 5)).toEqual({ cueCount: 1450, cues: cuesFrom(198, 5) });
      expect(await store.transcripts.readCues(sessionId(1), 1449, 10)).toEqual({ cueCount: 1450, cues: [cueOf(1449)] });
      expect(await store.transcripts.readCues(sessionId(1), 1450, 10)).toEqual({ cueCount: 1450, cues: [] });
      // At most MAX_CUES_READ at a time, whatever is asked.
      expect(await store.transcripts.readCues(sessionId(1), 100, 5000)).toEqual({ cueCount: 1450, cues: cuesFrom(100, MAX_CUES_READ) });
      expect(await store.transcripts.readCues(sessionId(2), 0, 10)).toBeNull();
      expect(await store.transcripts.cueCount(sessionId(2))).toBeNull();

      // New text replaces every cue; none of the longer transcript's is left behind.
      await store.transcripts.importTranscripts(T1, [{ sessionId: sessionId(1), vtt: vtt('only one') }], admin);
      expect(await store.transcripts.readCues(sessionId(1), 0, MAX_CUES_READ)).toEqual({ cueCount: 1, cues: [{ startMs: 0, endMs: 2000, text: 'only one' }] });
      expect(await store.transcripts.readCues(sessionId(1), 200, 10)).toEqual({ cueCount: 1, cues: [] });
    });

    it('reads the stored cues, never the text: a reader parses nothing', async () => {
      await store.transcripts.importTranscripts(T1, [{ sessionId: sessionId(1), vtt: longVtt(5) }], admin);
      // Text no parser would read: the cues still come, so they were not read from it.
      await store.database.write(null, (tx) => tx.run("UPDATE transcripts SET vtt = 'not WebVTT' WHERE session_id = @id", { id: sessionId(1) }));
      expect(await store.transcripts.readCues(sessionId(1), 0, 10)).toEqual({ cueCount: 5, cues: cuesFrom(0, 5) });
    });

    it('refuses text that is not WebVTT, storing none of the import', async () => {
      const error = await store.transcripts
        .importTranscripts(T1, [{ sessionId: sessionId(1), vtt: vtt('one') }, { sessionId: sessionId(2), vtt: 'WEBVTT\n\nnot a cue\n' }], admin)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadTranscriptError);
      expect(await store.transcripts.findTranscript(sessionId(1))).toBeNull();
    });

    it('stores the cues of transcripts imported before cues were stored, once; one its parser refuses gets none', async () => {
      await store.transcripts.importTranscripts(T1, [{ sessionId: sessionId(1), vtt: longVtt(450) }, { sessionId: sessionId(2), vtt: vtt('two') }], admin);
      // As migration 10 leaves an earlier version's: no cues, cue_count NULL; the second with text this parser refuses.
      await store.database.write(null, async (tx) => {
        await tx.run('DELETE FROM transcript_cue_pages');
        await tx.run('UPDATE transcript_cues SET cue_count = NULL');
        await tx.run("UPDATE transcripts SET vtt = 'WEBVTT\n\n00:01.000 --> 00:02.000\na --> b\n' WHERE session_id = @id", { id: sessionId(2) });
      });
      expect(await store.transcripts.storeMissingCues()).toEqual({ stored: 2, unreadable: [sessionId(2)] });
      expect(await store.transcripts.readCues(sessionId(1), 440, 20)).toEqual({ cueCount: 450, cues: cuesFrom(440, 10) });
      expect(await store.transcripts.readCues(sessionId(2), 0, 20)).toEqual({ cueCount: 0, cues: [] });
      expect(await store.transcripts.storeMissingCues()).toEqual({ stored: 0, unreadable: [] });
      expect(announced).toEqual([{ topic: 'sessions', testId: T1 }]);
      // Imported by a release before migration 10 during a rolling upgrade: still a transcript, with no cues.
      await store.database.write(null, (tx) => tx.run('DELETE FROM transcript_cues WHERE session_id = @id', { id: sessionId(1) }));
      expect(await store.transcripts.cueCount(sessionId(1))).toBe(0);
    });

    it('keeps a transcript when its session is re-imported with a new start time (the row is replaced)', async () => {
      await store.transcripts.importTranscripts(T1, [{ sessionId: sessionId(2), vtt: vtt('two') }], admin);
      await store.sessions.importSessions(T1, [session(2, T0 - 3_600_000)], admin);
      expect(await store.transcripts.findTranscript(sessionId(2))).toEqual({ testId: T1, vtt: vtt('two') });
    });
  });
}
