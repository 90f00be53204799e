import type { SessionRepository } from '../store/sessions.js';
import type { Actor, ImportResult, SessionInput, TestPlan } from '../store/store.js';
import { BadSessionFileError, checkSessionFile, SessionFileChecker } from './check-session-file.js';
import type { SessionFileFormat } from './parse-session-file.js';
import { readSessionRecords } from './session-file-stream.js';

/** What an import is doing, for a progress display: bytes of the file read, per phase. */
export type ImportPhase = 'reading' | 'finding repeated sessionIds' | 'writing';

export interface ImportFileOptions {
  /** How many bad lines a BadSessionFileError describes (all are counted). */
  limit: number;
  fileBytes: number;
  /** Sessions handed to the store at a time (at least; a chunk of the file is never split). */
  batchSize: number;
  /** The test's plan, which each record's details are checked against. */
  plan?: TestPlan | null;
  onProgress?: (phase: ImportPhase, bytesRead: number) => void;
}

/**
 * Imports a session file of any size, all or nothing, reading it once: each chunk's records
 * are checked and, while no line is bad, handed to the store as a batch. The store writes
 * nothing for good until the stream ends (SessionRepository.importSessionStream), and the stream ends in
 * BadSessionFileError, after the whole file has been read, if any line was bad (a repeated
 * sessionId included): every bad line is then reported and nothing is imported.
 */
export async function importSessionFile(
  sessions: Pick<SessionRepository, 'importSessionStream'>,
  testId: string,
  path: string,
  format: SessionFileFormat,
  by: Actor,
  options: ImportFileOptions,
): Promise<ImportResult> {
  const { onProgress } = options;
  const checker = new SessionFileChecker(path, format, options);
  let reading = false;
  let readWhole = false;

  async function* batches(): AsyncGenerator<SessionInput[]> {
    reading = true;
    let batch: SessionInput[] = [];
    const chunks = readSessionRecords(
      path,
      format,
      (record) => {
        checker.note(record);
        if (record.session) batch.push(record.session);
      },
      onProgress && ((bytes) => onProgress('reading', bytes)),
      options.plan ?? null,
    );
    for await (const _chunk of chunks) {
      if (!checker.clean) batch = []; // nothing will be written: only the rest of the check matters
      if (batch.length >= options.batchSize) {
        yield batch;
        batch = [];
      }
    }
    readWhole = true;
    if (checker.clean && batch.length > 0) yield batch;
    const report = await checker.report(onProgress && ((bytes) => onProgress('finding repeated sessionIds', bytes)));
    if (report.badLines > 0) throw new BadSessionFileError(report);
    onProgress?.('writing', options.fileBytes);
  }

  try {
    return await sessions.importSessionStream(testId, batches(), by);
  } catch (err) {
    // The store may refuse before the whole file is read (PostgreSQL finds another test's
    // session as its batch arrives); bad lines, if there are any, are still the answer to give.
    if (reading && !readWhole && !(err instanceof BadSessionFileError)) {
      const report = await checkSessionFile(path, format, { ...options, onBytesRead: undefined });
      if (report.badLines > 0) throw new BadSessionFileError(report);
    }
    throw err;
  }
}
