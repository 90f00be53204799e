import { CommanderError } from 'commander';
import { ResultsApiError, ResultsNetworkError } from '@results-api/client';
import { ConfigError } from '../config.js';
import { isDatabaseUnavailable } from '../observability/database-unavailable.js';
import { StoreConflictError } from '../store/conflicts.js';

/**
 * How every command talks back: results to stdout (a table or sentence for people, one JSON
 * document with --json), failures to stderr as `error: <message>` with an exit code, never a
 * stack trace.
 */

/** Exit codes: 1 for a refused or failed operation, 2 for a usage or configuration mistake. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A failure the operator can act on; its message is printed as is. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILURE,
    /** Lines printed to stderr before the error line (e.g. each bad line of a file). */
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }
}

export const usageError = (message: string): CliError => new CliError(message, EXIT_USAGE);

export interface OutputOptions {
  json?: boolean;
}

/** Prints `value` as JSON with --json, otherwise the human rendering. */
export function emit(options: OutputOptions, value: unknown, human: () => string): void {
  process.stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

export interface Column<T> {
  header: string;
  value: (row: T) => string;
}

/** Left-aligned columns separated by two spaces; `empty` is printed when there are no rows. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[], empty: string): string {
  if (rows.length === 0) return empty;
  const cells = [columns.map((c) => c.header), ...rows.map((row) => columns.map((c) => c.value(row)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells.map((line) => line.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

/** Prints an error the one way and returns the exit code to use. */
export function reportError(err: unknown): number {
  // Commander has already printed its own `error: ...` line (and help when asked for).
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : EXIT_USAGE;
  const { message, exitCode, details } = describeError(err);
  for (const line of details) process.stderr.write(`${line}\n`);
  process.stderr.write(`error: ${message}\n`);
  if (err instanceof ResultsApiError && err.oauth?.error === 'invalid_client') process.stderr.write(INVALID_CLIENT_SOURCES);
  return exitCode;
}

/** After a refused client: where this CLI took the credentials from, and how to see whether they still hold. */
const INVALID_CLIENT_SOURCES =
  'hint: the client id and secret came from --client-secret-stdin, RESULTS_API_CLIENT_ID and RESULTS_API_CLIENT_SECRET, or the\n' +
  '  credentials file (--config; default ~/.config/results-api/credentials.json), in that order; the server URL from\n' +
  '  RESULTS_API_AUTH_URL or "authUrl" there. `results-api credentials list --email <user>` on the server shows whether\n' +
  '  the credential was revoked or its secret rotated; `results-api credentials issue` makes a new one.\n';

function describeError(err: unknown): { message: string; exitCode: number; details: readonly string[] } {
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode, details: err.details };
  if (err instanceof ConfigError) return { message: err.message, exitCode: EXIT_USAGE, details: [] };
  if (err instanceof StoreConflictError) return { message: err.message, exitCode: EXIT_FAILURE, details: [] };
  // The SDK's failures (a consumer command talking to a server) say what they are as they are.
  if (err instanceof ResultsNetworkError || err instanceof ResultsApiError) return { message: err.message, exitCode: EXIT_FAILURE, details: [] };
  if (isDatabaseUnavailable(err)) {
    return { message: `the database (DATABASE_URL) is unreachable: ${describeCause(err)}`, exitCode: EXIT_FAILURE, details: [] };
  }
  // A fault (disk full...): its message helps, its stack would not.
  const message = err instanceof Error ? err.message : String(err);
  return { message, exitCode: EXIT_FAILURE, details: [] };
}

/** Every command takes this flag. */
export const JSON_FLAG = '--json';
export const JSON_FLAG_HELP = 'print machine-readable JSON to stdout';

/** node-postgres reports several refused addresses as an AggregateError with an empty message. */
function describeCause(err: unknown): string {
  if (err instanceof AggregateError && !err.message) return describeCause(err.errors[0]);
  const e = err as { message?: string; code?: string };
  return e.message || e.code || String(err);
}
