/**
 * The one seam between the domain repositories and a database engine. Every repository
 * writes its SQL once, with named parameters (`@name`); each dialect translates and runs it.
 *
 * Writes happen only inside `write`, which must be told what the write changes for the
 * caches of every process (or `null` when nothing cached depends on it): a new mutation that
 * announces nothing does not compile. The announcement goes out after COMMIT, never for a
 * rolled-back transaction.
 */
import type { Change } from '../changes/change-feed.js';

/** A database row as both drivers return it: snake_case columns. */
export type Row = Record<string, unknown>;
export type Params = object;

export interface Reader {
  one<T extends Row = Row>(sql: string, params?: Params): Promise<T | undefined>;
  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]>;
}

export interface Transaction extends Reader {
  /** Which engine runs it: for the few statements each engine writes its own way (see jsonRows). */
  readonly dialect: Dialect;
  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, params?: Params): Promise<number>;
  /**
   * Waits for every other transaction holding the lock `name` to end, and holds it until this
   * one ends: for writes that must take turns though no row exists yet to lock.
   */
  lock(name: string): Promise<void>;
}

/** Tells the other processes (and this one's caches) what a committed write changed. */
export type Announce = (change: Change) => Promise<void>;

export type Dialect = 'sqlite' | 'postgres';

/**
 * The rows of a JSON array of arrays passed as one parameter `@name`, as a table whose column
 * `value` is each row (its columns `value ->> 0`, `value ->> 1`, … as text or numbers; cast
 * numbers for PostgreSQL, which reads them as text). For set-wise writes of thousands of rows:
 * one parameter and one statement instead of a placeholder per value.
 */
export const jsonRows = (dialect: Dialect, name: string): string =>
  dialect === 'sqlite' ? `json_each(@${name})` : `jsonb_array_elements(CAST(@${name} AS jsonb)) AS json_rows (value)`;

export interface WriteOptions {
  /**
   * False: PostgreSQL's COMMIT returns before the transaction's WAL reaches the disk
   * (`synchronous_commit` off for it alone), sparing a flush per transaction; a crash may then
   * lose the last few hundred milliseconds of such commits though they were answered. Only for
   * writes whose loss the caller recovers from. SQLite ignores it.
   */
  waitForDisk?: boolean;
}

export interface Database extends Reader {
  readonly dialect: Dialect;
  /**
   * Runs `fn` in one transaction that holds the rows it reads `FOR UPDATE` (PostgreSQL) or
   * the whole database (SQLite, whose write transactions are exclusive): COMMIT when `fn`
   * resolves, ROLLBACK when it throws. Then announces `change`.
   */
  write<T>(change: Change | null, fn: (tx: Transaction) => Promise<T>, options?: WriteOptions): Promise<T>;
  migrate(): Promise<{ applied: number[] }>;
  /** Cheap liveness check. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * SQLite only: a number that changes when another process (a CLI command, another worker)
   * commits, and never for this process's own writes, which announce what they change. Cheap
   * enough to call on every request; caches compare it.
   */
  externalChangeVersion?(): number;
  /** PostgreSQL only: the connection pool's state, for metrics. */
  poolStats?(): { total: number; idle: number; waiting: number };
}
