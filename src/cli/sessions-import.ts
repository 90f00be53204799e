import { statSync, type Stats } from 'node:fs';
import { Option, type Command } from 'commander';
import { systemClock } from '../clock.js';
import { importSessions, RefusedSessionFile } from '../operations/imports.js';
import { SESSION_FILE_FORMATS, sessionFileFormat, type SessionFileFormat } from '../imports/parse-session-file.js';
import type { Store } from '../store/open-store.js';
import type { Actor } from '../store/store.js';
import { basename } from 'node:path';
import { uuidArgument } from './arguments.js';
import { ADMIN_CLIENT_ID_OPTION, ADMIN_CLIENT_SECRET_OPTION, callEndpoint, ENDPOINT_OPTION, endpointOf, type EndpointOptions } from './endpoint.js';
import { cliActor, loadCliConfig, warnOnceIfRedisDown } from './context.js';
import { ImportProgress } from './import-progress.js';
import { CliError, emit, JSON_FLAG, JSON_FLAG_HELP, usageError, type OutputOptions } from './output.js';


type ImportOptions = OutputOptions & EndpointOptions & { test: string; format?: SessionFileFormat };

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
    .option(...ENDPOINT_OPTION)
    .option(...ADMIN_CLIENT_ID_OPTION)
    .option(...ADMIN_CLIENT_SECRET_OPTION)
    .action(async (file: string, options: ImportOptions) => {
      const testId = uuidArgument('--test', options.test);
      const format = options.format ?? sessionFileFormat(file);
      if (!format) throw usageError(`cannot tell the format of ${file} from its extension: use --format ndjson or --format csv`);
      const fileBytes = readableFile(file).size;

      const result = endpointOf(options)
        ? // The upload runs the same import on the server; the format goes along, as decided here.
          await callEndpoint<Awaited<ReturnType<typeof importSessions>>>(options, {
            method: 'POST',
            path: `/admin/api/tests/${testId}/sessions/import?format=${format}`,
            file: { path: file, name: basename(file) },
          })
        : await withImportStore(async (store, by) => {
            const progress = new ImportProgress(process.stderr, fileBytes);
            try {
              return await importSessions(store, { testId, path: file, name: file, format, fileBytes }, by, (phase, bytes) => progress.update(phase, bytes));
            } catch (err) {
              if (err instanceof RefusedSessionFile) throw new CliError(err.message, 1, err.lines);
              throw err;
            } finally {
              progress.clear();
            }
          });
      emit(
        options,
        result,
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
