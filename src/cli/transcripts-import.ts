import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { TranscriptInput } from '../store/transcripts.js';
import { isUuid, uuidKey } from '../store/uuid.js';
import { BadTranscriptError, checkWebVtt, MAX_TRANSCRIPT_BYTES } from '../store/webvtt.js';
import { uuidArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { CliError, emit, JSON_FLAG, JSON_FLAG_HELP, usageError, type OutputOptions } from './output.js';

/** More bad files than this are counted, not printed. */
const MAX_REPORTED_BAD_FILES = 100;

type ImportOptions = OutputOptions & { test?: string; session?: string };

/** One file to import and the session it is the transcript of. */
interface TranscriptFile {
  path: string;
  sessionId: string;
}

const VTT_NAME = /^(.+)\.vtt$/i;

/**
 * `transcripts import`: one session's transcript (`--session S FILE.vtt`), or a test's folder
 * of `<sessionId>.vtt` files (`--test T DIR`). All or nothing: every file is read and checked
 * as WebVTT first, and any bad one (reported by file and line) means nothing is imported.
 * Then the files are read again, one at a time, into one transaction, so memory holds one
 * transcript whatever the folder's size; the store reads each one's cues as it stores it.
 * Idempotent: a transcript identical to the stored one is left alone, and importing the same
 * files again changes nothing.
 */
export function registerTranscriptsImportCommand(transcripts: Command): void {
  transcripts
    .command('import')
    .description(
      "import WebVTT transcripts: one session's (--session S FILE.vtt) or a test's folder of <sessionId>.vtt files " +
        '(--test T DIR); every file is checked first and any bad one means nothing is imported; ' +
        'importing the same files again changes nothing',
    )
    .argument('<path>', 'a .vtt file (with --session) or a folder of <sessionId>.vtt files (with --test)')
    .option('--session <uuid>', 'the session whose transcript the file is')
    .option('--test <uuid>', 'the test the sessions belong to (required for a folder; checked against --session if both)')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (path: string, options: ImportOptions) => {
      const testId = options.test === undefined ? undefined : uuidArgument('--test', options.test);
      const sessionId = options.session === undefined ? undefined : uuidArgument('--session', options.session);
      if (testId === undefined && sessionId === undefined) throw usageError('give --session S with a .vtt file, or --test T with a folder of <sessionId>.vtt files');
      const files = sessionId !== undefined ? [await singleFile(path, sessionId)] : await folderFiles(path);

      await checkAll(files);
      const result = await withRuntime(async (runtime, by) => {
        let target = testId;
        if (target === undefined) {
          // One session, no --test: the test is the session's own.
          const session = await runtime.store.sessions.findSession(sessionId!);
          if (!session) throw new CliError(`no session ${sessionId}: import the session first (results-api sessions import)`);
          target = session.testId;
        }
        return { testId: target, ...(await runtime.store.transcripts.importTranscripts(target, readAgain(files), by)) };
      });
      emit(
        options,
        { ...result, files: files.length },
        () =>
          `imported ${files.length} transcript${files.length === 1 ? '' : 's'} into test ${result.testId}: ` +
          `${result.inserted} inserted, ${result.updated} updated, ${result.unchanged} unchanged`,
      );
    });
}

async function singleFile(path: string, sessionId: string): Promise<TranscriptFile> {
  const stats = await statOrUsage(path);
  if (stats.isDirectory()) throw usageError(`${path} is a folder: --session takes one .vtt file (use --test T for a folder)`);
  return { path, sessionId };
}

/** Every `<sessionId>.vtt` of a folder, in name order; anything else in it (but dot files) is a mistake. */
async function folderFiles(dir: string): Promise<TranscriptFile[]> {
  const stats = await statOrUsage(dir);
  if (!stats.isDirectory()) throw usageError(`${dir} is not a folder: --test takes a folder of <sessionId>.vtt files (use --session S for one file)`);
  const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => !e.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : 1));
  const files: TranscriptFile[] = [];
  const wrong: string[] = [];
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const id = VTT_NAME.exec(entry.name)?.[1];
    if (!entry.isFile() || id === undefined || !isUuid(id)) {
      wrong.push(`${path}: not a <sessionId>.vtt file`);
      continue;
    }
    const sessionId = uuidKey(id);
    const twin = seen.get(sessionId);
    if (twin) wrong.push(`${path}: the same session as ${twin}`);
    seen.set(sessionId, path);
    files.push({ path, sessionId });
  }
  if (wrong.length > 0) throw badFiles(wrong, `${dir}: ${wrong.length} file${wrong.length === 1 ? ' is' : 's are'} not a session's transcript`);
  if (files.length === 0) throw usageError(`${dir} holds no <sessionId>.vtt files`);
  return files;
}

/** Checks every file as WebVTT, reporting every bad one (the first 100), before anything is written. */
async function checkAll(files: readonly TranscriptFile[]): Promise<void> {
  const bad: string[] = [];
  for (const file of files) {
    try {
      await readTranscript(file);
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      bad.push(err.message);
    }
  }
  if (bad.length > 0) throw badFiles(bad, `${bad.length} bad transcript${bad.length === 1 ? '' : 's'}`);
}

/** The files again, as the import's transaction reads them: checked again, in case one changed since. */
async function* readAgain(files: readonly TranscriptFile[]): AsyncGenerator<TranscriptInput> {
  for (const file of files) yield { sessionId: file.sessionId, vtt: await readTranscript(file) };
}

async function readTranscript(file: TranscriptFile): Promise<string> {
  const { size } = await stat(file.path);
  // Refused before reading: an oversized file is never loaded.
  if (size > MAX_TRANSCRIPT_BYTES) throw new CliError(`${file.path}: larger than ${MAX_TRANSCRIPT_BYTES / 1024 / 1024} MiB (${size} bytes)`);
  try {
    return checkWebVtt(await readFile(file.path)).text;
  } catch (err) {
    if (err instanceof BadTranscriptError) throw new CliError(`${file.path}: ${err.message}`);
    throw err;
  }
}

async function statOrUsage(path: string) {
  try {
    return await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw usageError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file or folder' : (err as Error).message}`);
  }
}

function badFiles(lines: string[], summary: string): CliError {
  const shown = lines.slice(0, MAX_REPORTED_BAD_FILES);
  const hidden = lines.length - shown.length;
  if (hidden > 0) shown.push(`... and ${hidden} more`);
  return new CliError(`${summary}; nothing was imported`, 1, shown);
}
