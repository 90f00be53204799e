import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import {
  parseSessionFile,
  SESSION_FILE_FORMATS,
  sessionFileFormat,
  type SessionFileFormat,
} from '../results/parse-session-file.js';
import { uuidArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { registerSessionsExportCommand } from './sessions-export.js';
import { CliError, emit, JSON_FLAG, JSON_FLAG_HELP, usageError, type OutputOptions } from './output.js';

/** More bad lines than this are counted, not printed: a wrong file would otherwise flood the terminal. */
export const MAX_REPORTED_BAD_LINES = 100;

type ImportOptions = OutputOptions & { test: string; format?: SessionFileFormat };

/** `sessions import`: all or nothing, idempotent (upsert by sessionId). */
export function registerSessions(program: Command): void {
  const sessions = program.command('sessions').description("a test's sessions");

  sessions
    .command('import')
    .description(
      'import sessions from NDJSON or CSV (fields sessionId, audienceId, status, startTime, finishTime); ' +
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

      const parsed = parseSessionFile(readText(file), format);
      if (!parsed.ok) {
        const shown = parsed.errors.slice(0, MAX_REPORTED_BAD_LINES).map((e) => `line ${e.line}: ${e.message}`);
        const hidden = parsed.errors.length - shown.length;
        if (hidden > 0) shown.push(`... and ${hidden} more bad line${hidden === 1 ? '' : 's'}`);
        const count = `${parsed.errors.length} bad line${parsed.errors.length === 1 ? '' : 's'}`;
        throw new CliError(`${file}: ${count}; nothing was imported`, 1, shown);
      }

      const result = await withRuntime((rt, by) => rt.store.importSessions(testId, parsed.sessions, by));
      emit(
        options,
        { testId, ...result },
        () => `imported ${file} into test ${testId}: ${result.inserted} inserted, ${result.updated} updated, ${result.unchanged} unchanged`,
      );
    });

  registerSessionsExportCommand(sessions);
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message;
    throw usageError(`cannot read ${file}: ${reason}`);
  }
}
