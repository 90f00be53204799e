import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import { conflict } from './conflicts.js';
import type { Database } from './database.js';
import type { Actor, ImportResult } from './store.js';

/** One session's transcript as imported: WebVTT text, checked by the caller (src/transcripts/webvtt.ts). */
export interface TranscriptInput {
  sessionId: string;
  vtt: string;
}

/** A stored transcript and the test its session belongs to (what visibility is decided on). */
export interface StoredTranscript {
  testId: string;
  vtt: string;
}

export type TranscriptSource = Iterable<TranscriptInput> | AsyncIterable<TranscriptInput>;

/** Thrown inside the transaction to roll it back when the import would change nothing. */
class NothingChanged extends Error {}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The WebVTT transcript of each session that has one; at most one per session, replaced whole. */
export class TranscriptRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Stores the transcripts of sessions of `testId` in one transaction: all or none. Every
   * session must already belong to the test. A transcript identical to the stored one counts
   * as unchanged; when nothing at all changes, nothing is written, audited or announced, so
   * importing the same files again is a no-op.
   */
  async importTranscripts(testId: string, transcripts: TranscriptSource, by: Actor): Promise<ImportResult> {
    if (!(await this.db.one('SELECT 1 AS found FROM tests WHERE id = @testId', { testId }))) throw conflict.noTest(testId);
    const result: ImportResult = { inserted: 0, updated: 0, unchanged: 0 };
    try {
      await this.db.write({ topic: 'sessions', testId }, async (tx) => {
        // Locking the test serializes imports into it, as the session import does.
        if (!(await tx.one('SELECT 1 AS found FROM tests WHERE id = @testId FOR UPDATE', { testId }))) throw conflict.noTest(testId);
        const importedAt = this.clock.now();
        for await (const { sessionId, vtt } of transcripts) {
          const row = await tx.one<{ test_id: string; sha256: string | null }>(
            `SELECT s.test_id, t.sha256 FROM sessions s LEFT JOIN transcripts t ON t.session_id = s.session_id
              WHERE s.session_id = @sessionId`,
            { sessionId },
          );
          if (!row || row.test_id !== testId) throw conflict.noSessionInTest(sessionId, testId);
          const hash = sha256(vtt);
          if (row.sha256 === hash) {
            result.unchanged++;
            continue;
          }
          await tx.run(
            `INSERT INTO transcripts (session_id, vtt, sha256, imported_at) VALUES (@sessionId, @vtt, @hash, @importedAt)
             ON CONFLICT (session_id) DO UPDATE SET vtt = excluded.vtt, sha256 = excluded.sha256, imported_at = excluded.imported_at`,
            { sessionId, vtt, hash, importedAt },
          );
          if (row.sha256 === null) result.inserted++;
          else result.updated++;
        }
        if (result.inserted === 0 && result.updated === 0) throw new NothingChanged();
        await audit(tx, this.clock, by, 'transcripts.import', testId, { ...result });
      });
    } catch (error) {
      if (!(error instanceof NothingChanged)) throw error;
    }
    return result;
  }

  /** A session's transcript with its session's test, or null when the session has none (or does not exist). */
  async findTranscript(sessionId: string): Promise<StoredTranscript | null> {
    const r = await this.db.one<{ test_id: string; vtt: string }>(
      'SELECT s.test_id, t.vtt FROM transcripts t JOIN sessions s ON s.session_id = t.session_id WHERE t.session_id = @sessionId',
      { sessionId },
    );
    return r ? { testId: r.test_id, vtt: r.vtt } : null;
  }
}
