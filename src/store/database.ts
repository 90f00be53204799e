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

export interface Database extends Reader {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Runs `fn` in one transaction that holds the rows it reads `FOR UPDATE` (PostgreSQL) or
   * the whole database (SQLite, whose write transactions are exclusive): COMMIT when `fn`
   * resolves, ROLLBACK when it throws. Then announces `change`.
   */
  write<T>(change: Change | null, fn: (tx: Transaction) => Promise<T>): Promise<T>;
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
