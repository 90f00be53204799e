import { BadSessionFileError, type SessionFileReport } from '../imports/check-session-file.js';
import { importSessionFile, type ImportFileOptions } from '../imports/import-session-file.js';
import type { SessionFileFormat } from '../imports/parse-session-file.js';
import type { DirectoryRepository } from '../store/directory.js';
import type { SessionRepository } from '../store/sessions.js';
import type { Actor, ImportResult } from '../store/store.js';

/** More bad lines than this are counted, not listed: a wrong file would otherwise flood the answer. */
export const MAX_REPORTED_BAD_LINES = 100;

/** Sessions handed to the store at a time: large enough to amortize each step, small enough to bound memory. */
export const IMPORT_BATCH = 5000;

/** A file with bad lines, described once for the CLI (stderr lines) and the admin API (`errors`). */
export class RefusedSessionFile extends Error {
  override name = 'RefusedSessionFile';
  constructor(
    /** e.g. `sessions.csv: 2 bad lines; nothing was imported` */
    message: string,
    /** `line 3: ...`, one per bad line shown, then how many more. */
    readonly lines: string[],
  ) {
    super(message);
  }
}

function refusal(name: string, { badLines, firstBadLines }: SessionFileReport): RefusedSessionFile {
  const shown = firstBadLines.map((e) => `line ${e.line}: ${e.message}`);
  const hidden = badLines - shown.length;
  if (hidden > 0) shown.push(`... and ${hidden} more bad line${hidden === 1 ? '' : 's'}`);
  return new RefusedSessionFile(`${name}: ${badLines} bad line${badLines === 1 ? '' : 's'}; nothing was imported`, shown);
}

/**
 * `sessions import` and the admin API's upload: all or nothing, idempotent (upsert by
 * sessionId), the file read once (see importSessionFile). `name` is how the file is named in
 * the refusal (its path, or the uploaded file's name).
 */
export async function importSessions(
  store: { sessions: Pick<SessionRepository, 'importSessionStream'>; directory: Pick<DirectoryRepository, 'getTest'> },
  input: { testId: string; path: string; name: string; format: SessionFileFormat; fileBytes: number },
  by: Actor,
  onProgress?: ImportFileOptions['onProgress'],
): Promise<{ testId: string } & ImportResult> {
  try {
    // Details are checked against the test's plan (an unknown test is refused by the store).
    const plan = (await store.directory.getTest(input.testId))?.plan ?? null;
    const result = await importSessionFile(store.sessions, input.testId, input.path, input.format, by, {
      plan,
      limit: MAX_REPORTED_BAD_LINES,
      fileBytes: input.fileBytes,
      batchSize: IMPORT_BATCH,
      ...(onProgress ? { onProgress } : {}),
    });
    return { testId: input.testId, ...result };
  } catch (err) {
    if (err instanceof BadSessionFileError) throw refusal(input.name, err.report);
    throw err;
  }
}
