import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { Change } from '../../changes/change-feed.js';
import type { Clock } from '../../clock.js';
import type { Announce, Database, Params, Row, Transaction } from '../database.js';
import { runRowRewrite } from '../migration-steps.js';
import { sqliteDriver } from './driver.js';
import { sqliteMigrations } from './migrations.js';

type Connection = BetterSqlite3.Database;

/**
 * The embedded database: one SQLite file in WAL mode, through two connections. Reads use one;
 * every write transaction uses the other, one at a time. better-sqlite3 is synchronous, but a
 * repository's transaction is async code: keeping its writes on their own connection means a
 * read that runs between two of its steps never sees uncommitted rows.
 */
export class SqliteDatabase implements Database {
  readonly dialect = 'sqlite';
  private readonly reader: Connection;
  private readonly writer: Connection;
  private readonly readStatements = new Map<string, BetterSqlite3.Statement>();
  private readonly writeStatements = new Map<string, BetterSqlite3.Statement>();
  /** On the writer: moves only when another connection (another process) commits. */
  private readonly dataVersion: BetterSqlite3.Statement;
  /** Prepared once: every write transaction (a refresh token's rotation each request) runs them. */
  private readonly begin: BetterSqlite3.Statement;
  private readonly commit: BetterSqlite3.Statement;
  private readonly rollback: BetterSqlite3.Statement;
  /** The tail of the queue of work on the writer connection. */
  private writerQueue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly clock: Clock,
    private readonly announce: Announce,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.writer = open(path);
    this.reader = open(path);
    this.dataVersion = this.writer.prepare('PRAGMA data_version').pluck();
    this.begin = this.writer.prepare('BEGIN IMMEDIATE');
    this.commit = this.writer.prepare('COMMIT');
    this.rollback = this.writer.prepare('ROLLBACK');
  }

  async one<T extends Row = Row>(sql: string, params: Params = {}): Promise<T | undefined> {
    return prepare(this.reader, this.readStatements, sql).get(params) as T | undefined;
  }

  async all<T extends Row = Row>(sql: string, params: Params = {}): Promise<T[]> {
    return prepare(this.reader, this.readStatements, sql).all(params) as T[];
  }

  async write<T>(change: Change | null, fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const result = await this.exclusive(async (writer) => {
      // IMMEDIATE takes the write lock up front: a CLI process writing too waits (busy_timeout), never fails half-way.
      this.begin.run();
      try {
        const value = await fn(this.transaction(writer));
        this.commit.run();
        return value;
      } catch (error) {
        if (writer.inTransaction) this.rollback.run();
        throw error;
      }
    });
    if (change) await this.announce(change);
    return result;
  }

  /**
   * Runs `fn` with the writer connection, after every write queued before it: for work that
   * needs the driver itself (the session import's staging table).
   */
  exclusive<T>(fn: (writer: Connection) => T | Promise<T>): Promise<T> {
    const run = this.writerQueue.then(() => fn(this.writer));
    this.writerQueue = run.catch(() => undefined);
    return run;
  }

  private transaction(writer: Connection): Transaction {
    const statement = (sql: string) => prepare(writer, this.writeStatements, sql);
    return {
      dialect: 'sqlite',
      one: async <T extends Row>(sql: string, params: Params = {}) => statement(sql).get(params) as T | undefined,
      all: async <T extends Row>(sql: string, params: Params = {}) => statement(sql).all(params) as T[],
      run: async (sql: string, params: Params = {}) => statement(sql).run(params).changes,
      // The write transaction already holds the whole database.
      lock: async () => undefined,
    };
  }

  async migrate(): Promise<{ applied: number[] }> {
    return this.exclusive(async (writer) => {
      writer.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
      writer.exec('BEGIN IMMEDIATE');
      try {
        const done = new Set(writer.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
        const applied: number[] = [];
        for (const m of sqliteMigrations) {
          if (done.has(m.version)) continue;
          if (m.sql) writer.exec(m.sql);
          for (const step of m.rewrites ?? []) {
            const select = writer.prepare(step.select);
            const update = writer.prepare(step.update);
            await runRowRewrite(step, (params) => select.all(params) as Record<string, unknown>[], (values) => update.run(values));
          }
          writer.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(m.version, this.clock.now());
          applied.push(m.version);
        }
        writer.exec('COMMIT');
        return { applied };
      } catch (error) {
        if (writer.inTransaction) writer.exec('ROLLBACK');
        throw error;
      }
    });
  }

  async ping(): Promise<void> {
    this.reader.prepare('SELECT 1').get();
  }

  /**
   * Asked of the writer connection, whose `PRAGMA data_version` moves when any other connection
   * commits but never for its own commits: this process's writes reach its caches through what
   * they announce (nothing, for a refresh token's rotation or a last-use time), so a write that
   * changes nothing cached no longer empties every cache of the process. The reader's version
   * would move on the writer's commits too. The writer cannot miss another process's commit: it
   * checks on every call when idle, and holds the write lock (so none can commit) inside a
   * transaction.
   */
  externalChangeVersion(): number {
    return this.dataVersion.get() as number;
  }

  async close(): Promise<void> {
    await this.writerQueue;
    for (const connection of [this.reader, this.writer]) if (connection.open) connection.close();
  }
}

function open(path: string): Connection {
  const Driver = sqliteDriver();
  const connection = new Driver(path);
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  // A CLI command and the server may write at once; wait rather than fail.
  connection.pragma('busy_timeout = 5000');
  return connection;
}

/**
 * Prepared once per connection. SQLite's write transactions already hold the whole database,
 * so the row locks that the shared SQL asks PostgreSQL for (`FOR UPDATE`, `FOR KEY SHARE`, `SKIP LOCKED`) are
 * dropped here.
 */
function prepare(connection: Connection, cache: Map<string, BetterSqlite3.Statement>, sql: string): BetterSqlite3.Statement {
  let statement = cache.get(sql);
  if (!statement) {
    statement = connection.prepare(sql.replace(/\s+FOR (?:UPDATE|KEY SHARE)(\s+OF\s+\w+)?(\s+SKIP LOCKED)?/g, ''));
    cache.set(sql, statement);
  }
  return statement;
}
