import { statSync, type Stats } from 'node:fs';
import { Option, type Command } from 'commander';
import { systemClock } from '../clock.js';
import { BadSessionFileError, type SessionFileReport } from '../imports/check-session-file.js';
import { importSessionFile } from '../imports/import-session-file.js';
import { SESSION_FILE_FORMATS, sessionFileFormat, type SessionFileFormat } from '../imports/parse-session-file.js';
import type { Store } from '../store/open-store.js';
import type { Actor } from '../store/store.js';
import { uuidArgument } from './arguments.js';
import { cliActor, loadCliConfig, warnOnceIfRedisDown } from './context.js';
import { ImportProgress } from './import-progress.js';
import { CliError, emit, JSON_FLAG, JSON_FLAG_HELP, usageError, type OutputOptions } from './output.js';

/** More bad lines than this are counted, not printed: a wrong file would otherwise flood the terminal. */
export const MAX_REPORTED_BAD_LINES = 100;

/** Sessions handed to the store at a time: large enough to amortize each step, small enough to bound memory. */
const IMPORT_BATCH = 5000;

type ImportOptions = OutputOptions & { test: string; format?: SessionFileFormat };

/**
 * `sessions import`: all or nothing, idempotent (upsert by sessionId), for files of any size.
 * The file is streamed once: every line is checked as the store stages the sessions, and the
 * store writes them in one transaction only once the whole file has proved good (see
 * importSessionFile). Memory stays bounded whatever the file's size; a bad line, a crash or an
 * interrupt at any point leaves the database as it was.
 */
export function registerSessionsImportCommand(sessions: Command): void {
  sessions
    .command('import')
    .description(
      'import sessions from NDJSON or CSV (fields sessionId, audienceId, status, startTime, finishTime, and ' +
        'optionally details: participant, taskGroups, tasks as nested JSON, checked against the test plan); ' +
        'the whole file is checked first and any bad line means nothing is imported; ' +
        're-importing updates sessions by sessionId',
    )
    .argument('<file>', 'the file to import (.ndjson, .jsonl or .csv)')
    .requiredOption('--test <uuid>', 'the test the sessions belong to')
    .addOption(new Option('--format <format>', 'file format (default: from the extension)').choices(SESSION_FILE_FORMATS))
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (file: string, options: ImportOptions) => {
      const testId = uuidArgument('--test', options.test);
      const format = options.format ?? sessionFileFormat(file);
      if (!format) throw usageError(`cannot tell the format of ${file} from its extension: use --format ndjson or --format csv`);
      const fileBytes = readableFile(file).size;

      const result = await withImportStore(async (store, by) => {
        const progress = new ImportProgress(process.stderr, fileBytes);
        try {
          // Details are checked against the test's plan (an unknown test is refused by the store).
          const plan = (await store.directory.getTest(testId))?.plan ?? null;
          return await importSessionFile(store.sessions, testId, file, format, by, {
            plan,
            limit: MAX_REPORTED_BAD_LINES,
            fileBytes,
            batchSize: IMPORT_BATCH,
            onProgress: (phase, bytes) => progress.update(phase, bytes),
          });
        } catch (err) {
          if (err instanceof BadSessionFileError) throw badFileError(file, err.report);
          throw err;
        } finally {
          progress.clear();
        }
      });
      emit(
        options,
        { testId, ...result },
        () => `imported ${file} into test ${testId}: ${result.inserted} inserted, ${result.updated} updated, ${result.unchanged} unchanged`,
      );
    });
}

/**
 * The migrated store, announcing its changes on the change feed (REDIS_URL), as the runtime
 * opens it, without the rest of the runtime: signing keys, authorization servers and their
 * libraries are no use to an import and would take ~20 MB of the memory it is kept within.
 */
async function withImportStore<T>(fn: (store: Store, by: Actor) => Promise<T>): Promise<T> {
  const config = loadCliConfig();
  const { openStoreWithFeed } = await import('../store/open-store.js');
  const { store, redis, close } = await openStoreWithFeed(config, systemClock);
  if (redis) warnOnceIfRedisDown(redis.outage);
  try {
    return await fn(store, cliActor());
  } finally {
    await close();
  }
}

function badFileError(file: string, { badLines, firstBadLines }: SessionFileReport): CliError {
  const shown = firstBadLines.map((e) => `line ${e.line}: ${e.message}`);
  const hidden = badLines - shown.length;
  if (hidden > 0) shown.push(`... and ${hidden} more bad line${hidden === 1 ? '' : 's'}`);
  return new CliError(`${file}: ${badLines} bad line${badLines === 1 ? '' : 's'}; nothing was imported`, 1, shown);
}

function readableFile(file: string): Stats {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw usageError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  if (stats.isDirectory()) throw usageError(`cannot read ${file}: it is a directory`);
  return stats;
}
