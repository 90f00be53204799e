import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Command } from 'commander';
import { ResultsApiError, type ResultsClient } from '@results-api/client';
import { isUuid } from '../store/uuid.js';
import { addCredentialOptions, openResultsClient, type CredentialFlags } from './api-credentials.js';
import { uuidArgument } from './arguments.js';
import { CliError, emit, JSON_FLAG, usageError, type OutputOptions } from './output.js';
import { ProgressBar } from './progress-bar.js';

type ExportOptions = CredentialFlags & OutputOptions & { test: string; out: string };

/** Transcripts fetched at once: enough to hide the round trips, few enough to stay well within a rate limit. */
export const TRANSCRIPT_CONCURRENCY = 4;

export interface TranscriptExportResult {
  /** Completed sessions listed. */
  sessions: number;
  /** Files written: the sessions that have a transcript. */
  transcripts: number;
}

/**
 * `transcripts export`: the transcript of every completed session of a test, through the API
 * as the SDK's users would fetch them (the session listing, then each session's transcript),
 * one `<sessionId>.vtt` per session that has one. Each file appears whole or not at all
 * (written beside its name, then renamed); the progress bar goes to stderr on a terminal,
 * the summary to stderr always (stdout carries --json only).
 */
export function registerTranscriptsExportCommand(transcripts: Command): void {
  addCredentialOptions(
    transcripts
      .command('export')
      .description("write the transcript of every completed session of a test through the API, one <sessionId>.vtt per session that has one")
      .requiredOption('--test <uuid>', 'the test whose transcripts are exported')
      .requiredOption('--out <dir>', 'the folder to write the .vtt files into (created if missing; files of the same name are replaced)')
      .option(JSON_FLAG, 'print the summary (test, sessions, transcripts, folder) as JSON on stdout'),
  ).action(async (options: ExportOptions) => {
    const testId = uuidArgument('--test', options.test);
    await prepareFolder(options.out);
    const client = await openResultsClient(options);
    const progress = process.stderr.isTTY ? new ProgressBar(process.stderr, 'exporting transcripts') : undefined;
    const result = await exportTranscripts(client, testId, { out: options.out, progress });
    if (options.json) emit(options, { testId, ...result, out: options.out }, () => '');
    else {
      process.stderr.write(
        `exported ${result.transcripts} transcript${result.transcripts === 1 ? '' : 's'} of test ${testId} to ${options.out} ` +
          `(${result.sessions - result.transcripts} of ${result.sessions} completed sessions have none)\n`,
      );
    }
  });
}

/**
 * Writes the transcript of every completed session of `testId` into `out`, fetching up to
 * TRANSCRIPT_CONCURRENCY at once, showing `progress` (sessions done of the test's completed
 * sessions) if given. A 404 for a listed session means it has no transcript; any other
 * failure stops the export (the files already written are whole).
 */
export async function exportTranscripts(
  client: Pick<ResultsClient, 'sessionResults' | 'transcript'>,
  testId: string,
  { out, progress }: { out: string; progress: Pick<ProgressBar, 'update' | 'clear'> | undefined },
): Promise<TranscriptExportResult> {
  const controller = new AbortController();
  const interrupt = () => controller.abort(new CliError('interrupted', 130));
  process.once('SIGINT', interrupt);
  const call = { signal: controller.signal };
  let total = 0;
  let done = 0;
  let written = 0;
  let listed = 0;
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;

  const fetchOne = async (sessionId: string) => {
    // The id names a file: one that is not a UUID (a broken or hostile server) could point outside `out`.
    if (!isUuid(sessionId)) throw new CliError(`the API listed a session id that is not a UUID (${JSON.stringify(sessionId).slice(0, 80)}); nothing more is written`);
    let vtt: string;
    try {
      vtt = await client.transcript(sessionId, call);
    } catch (err) {
      if (!(err instanceof ResultsApiError && err.status === 404)) throw err;
      return;
    }
    await writeWhole(join(out, `${sessionId}.vtt`), vtt);
    written++;
  };

  try {
    for await (const session of client.sessionResults(testId, { ...call, onPage: ({ totalCount }) => (total = totalCount) })) {
      listed++;
      const task: Promise<void> = fetchOne(session.sessionId)
        .then(() => progress?.update(++done, Math.max(total, listed)))
        .catch((err: unknown) => {
          failure ??= err;
          controller.abort(err);
        })
        .finally(() => inFlight.delete(task));
      inFlight.add(task);
      if (inFlight.size >= TRANSCRIPT_CONCURRENCY) await Promise.race(inFlight);
      if (failure !== undefined) break;
    }
    await Promise.all(inFlight);
    if (failure !== undefined) throw failure;
    return { sessions: listed, transcripts: written };
  } catch (err) {
    // An abort rejects with its reason: the first failure (or the interrupt) is what is reported.
    throw failure ?? err;
  } finally {
    await Promise.allSettled(inFlight);
    progress?.clear();
    process.off('SIGINT', interrupt);
  }
}

/** The folder to write into: created if missing, refused if it is a file. */
async function prepareFolder(out: string): Promise<void> {
  const existing = await stat(out).catch(() => undefined);
  if (existing && !existing.isDirectory()) throw usageError(`--out ${out} is a file: give a folder`);
  try {
    await mkdir(out, { recursive: true });
  } catch (err) {
    throw usageError(`cannot create ${out}: ${(err as Error).message}`);
  }
}

/**
 * Written beside its name and renamed over it, so a file is whole or absent, never half
 * written. The temporary name starts with a dot, which `transcripts import` skips.
 */
async function writeWhole(path: string, text: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
  try {
    await writeFile(temporary, text, 'utf8');
    await rename(temporary, path);
  } catch (err) {
    await unlink(temporary).catch(() => {});
    throw new CliError(`cannot write ${path}: ${(err as Error).message}`);
  }
}
