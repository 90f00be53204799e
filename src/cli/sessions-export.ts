import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { Option, type Command } from 'commander';
import type { ResultsClient } from '@results-api/client';
import { detailsEncoder } from '../details/details-record.js';
import { sessionFileFormat } from '../imports/parse-session-file.js';
import { addCredentialOptions, openResultsClient, type CredentialFlags } from './api-credentials.js';
import { uuidArgument } from './arguments.js';
import { CliError, emit, JSON_FLAG, usageError, type OutputOptions } from './output.js';
import { ProgressBar } from './progress-bar.js';
import { EXPORT_FORMATS, sessionEncoder, type ExportFormat } from '../details/session-export-format.js';

type ExportOptions = CredentialFlags & OutputOptions & { test: string; format?: ExportFormat; out?: string; details?: boolean };

/** Bytes gathered before each write: few system calls, little memory. */
const WRITE_CHUNK = 64 * 1024;

/**
 * `sessions export`: every session of a test, through the SDK's paging iterator (by offset,
 * or by the v1 cursor for a test beyond the offset listing's bound, so any size). Stdout
 * carries nothing but the data; the progress bar goes to stderr on a terminal, the summary to
 * stderr with --out (always: a script logs it) or on a terminal. With --out the file appears
 * only once the export is complete.
 */
export function registerSessionsExportCommand(sessions: Command): void {
  addCredentialOptions(
    sessions
      .command('export')
      .description(
        'write every session of a test through the API, newest first, as NDJSON or CSV ' +
          '(sessionId, audienceId, status, startTime, finishTime)',
      )
      .requiredOption('--test <uuid>', 'the test whose sessions are exported')
      .addOption(new Option('--format <format>', 'output format (default: from the --out extension, else ndjson)').choices(EXPORT_FORMATS))
      .option('--out <file>', 'write to this file (replaced only when the export is complete) instead of stdout')
      .option('--details', "with each session, its details (participant, task groups, answers) in the import's format")
      .option(JSON_FLAG, 'with --out: print the summary (test, sessions, file, format) as JSON on stdout'),
  ).action(async (options: ExportOptions) => {
    const testId = uuidArgument('--test', options.test);
    if (options.json && options.out === undefined) {
      throw usageError('--json prints the summary on stdout, which carries the sessions themselves without --out: add --out FILE (the data is NDJSON already by default)');
    }
    const format = options.format ?? (options.out !== undefined ? sessionFileFormat(options.out) : undefined) ?? 'ndjson';
    const client = await openResultsClient(options);
    const progress = process.stderr.isTTY ? new ProgressBar(process.stderr, 'exporting') : undefined;
    const count = await exportSessions(client, testId, { format, out: options.out, progress, details: options.details === true });
    if (options.json) emit(options, { testId, sessions: count, out: options.out, format }, () => '');
    else if (options.out !== undefined || process.stderr.isTTY) {
      process.stderr.write(`exported ${count} session${count === 1 ? '' : 's'} of test ${testId}${options.out ? ` to ${options.out}` : ''}\n`);
    }
  });
}

/** Writes every session of `testId` to `out` (or stdout), showing `progress` if given; returns how many. */
export async function exportSessions(
  client: ResultsClient,
  testId: string,
  {
    format,
    out,
    progress,
    offsetBound,
    details = false,
  }: {
    format: ExportFormat;
    out: string | undefined;
    progress: Pick<ProgressBar, 'update' | 'clear'> | undefined;
    /** Lowers the offset listing's bound (tests); beyond it the SDK reads by cursor. */
    offsetBound?: number;
    /** Each session with its details (fetched a few at a time: SDK sessionsWithDetails). */
    details?: boolean;
  },
): Promise<number> {
  const controller = new AbortController();
  const interrupt = () => controller.abort(new CliError(out === undefined ? 'interrupted' : `interrupted; ${out} was not written`, 130));
  process.once('SIGINT', interrupt);
  const target = out === undefined ? stdoutTarget() : await fileTarget(out);
  try {
    const listing = {
      signal: controller.signal,
      onPage: ({ received, totalCount }: { received: number; totalCount: number }) => progress?.update(received, totalCount),
      ...(offsetBound === undefined ? {} : { offsetBound }),
    };
    const plain = sessionEncoder(format);
    const withDetails = detailsEncoder(format);
    let buffer = details ? withDetails.header : plain.header;
    let count = 0;
    const records: AsyncIterable<string> = details
      ? map(client.sessionsWithDetails(testId, listing), withDetails.encode)
      : map(client.sessionResults(testId, listing), plain.encode);
    for await (const record of records) {
      buffer += record;
      count++;
      if (buffer.length >= WRITE_CHUNK) {
        await target.write(buffer);
        buffer = '';
      }
    }
    await target.write(buffer);
    await target.commit();
    progress?.clear();
    return count;
  } catch (err) {
    progress?.clear();
    await target.discard();
    throw err;
  } finally {
    process.off('SIGINT', interrupt);
  }
}

async function* map<T>(items: AsyncIterable<T>, encode: (item: T) => string): AsyncGenerator<string> {
  for await (const item of items) yield encode(item);
}

interface ExportTarget {
  write(chunk: string): Promise<void>;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

function stdoutTarget(): ExportTarget {
  return {
    write: (chunk) => writeTo(process.stdout, chunk, 'stdout'),
    commit: async () => {},
    discard: async () => {},
  };
}

/** A temporary file beside `out`, renamed over it at the end, so a failed export leaves no half file. */
async function fileTarget(out: string): Promise<ExportTarget> {
  const temporary = join(dirname(out), `.${basename(out)}.${process.pid}.partial`);
  let handle: FileHandle;
  try {
    handle = await open(temporary, 'wx');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'its directory does not exist' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw usageError(`cannot write ${out}: ${why}`);
  }
  const stream = handle.createWriteStream();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await new Promise<void>((resolve) => stream.end(resolve));
  };
  return {
    write: (chunk) => writeTo(stream, chunk, out),
    commit: async () => {
      await close();
      await rename(temporary, out);
    },
    discard: async () => {
      await close().catch(() => {});
      await unlink(temporary).catch(() => {});
    },
  };
}

/** Writes and waits until the stream took it, so memory stays flat however fast the API is. */
function writeTo(stream: Writable, chunk: string, name: string): Promise<void> {
  if (chunk === '') return Promise.resolve();
  // Failures arrive through the callback; a listener keeps them from also crashing the process.
  if (stream.listenerCount('error') === 0) stream.on('error', () => {});
  return new Promise((resolve, reject) =>
    stream.write(chunk, (err) => (err ? reject(new CliError(`cannot write to ${name}: ${err.message}`)) : resolve())),
  );
}
