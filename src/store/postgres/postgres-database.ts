import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Change } from '../../changes/change-feed.js';
import type { Clock } from '../../clock.js';
import type { Announce, Database, Params, Row, Transaction, WriteOptions } from '../database.js';
import { runRowRewrite } from '../migration-steps.js';
import { postgresMigrations } from './migrations.js';

export interface PostgresOptions {
  /** Keep all tables in this schema (created by migrate()); lets tests and tenants share a database. */
  schema?: string;
  poolSize?: number;
}

const INT8_OID = 20;
// Epoch milliseconds and counts fit a double exactly; pg would otherwise return BIGINT as string.
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** A statement in PostgreSQL's terms: `$n` placeholders and the parameter name behind each. */
interface Prepared {
  name: string;
  text: string;
  names: string[];
}

type Queryable = pg.Pool | pg.PoolClient;

/**
 * PostgreSQL through a connection pool. Every statement is prepared by name, so each pooled
 * connection parses and plans it once (the shared SQL lists its columns: a prepared `*` fails
 * on live connections once a migration adds one).
 */
export class PostgresDatabase implements Database {
  readonly dialect = 'postgres';
  readonly pool: pg.Pool;
  private readonly schema: string | undefined;
  private readonly prepared = new Map<string, Prepared>();
  /** The connection behind each open transaction, for what only the driver can do (COPY). */
  private readonly connections = new WeakMap<Transaction, pg.PoolClient>();
  private closed = false;

  constructor(
    databaseUrl: string,
    private readonly clock: Clock,
    private readonly announce: Announce,
    options: PostgresOptions = {},
  ) {
    this.schema = options.schema;
    if (this.schema !== undefined && !SCHEMA_PATTERN.test(this.schema)) {
      throw new Error(`schema must match ${SCHEMA_PATTERN} (got "${this.schema}")`);
    }
    this.pool = new pg.Pool({
      connectionString: this.schema ? withSearchPath(databaseUrl, this.schema) : databaseUrl,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 10_000,
      types,
    });
    // An idle connection dropped by the server must not crash the process; the next query
    // gets a fresh connection or reports the error to its caller.
    this.pool.on('error', () => undefined);
  }

  async one<T extends Row = Row>(sql: string, params?: Params): Promise<T | undefined> {
    return (await this.query<T>(this.pool, sql, params))[0];
  }

  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]> {
    return this.query<T>(this.pool, sql, params);
  }

  async write<T>(change: Change | null, fn: (tx: Transaction) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    let result: T;
    try {
      // One round trip either way (a simple query may hold several statements).
      await client.query(options.waitForDisk === false ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN');
      const tx: Transaction = {
        dialect: 'postgres',
        one: async <R extends Row>(sql: string, params?: Params): Promise<R | undefined> => (await this.query<R>(client, sql, params))[0],
        all: <R extends Row>(sql: string, params?: Params) => this.query<R>(client, sql, params),
        run: async (sql, params) => (await client.query(this.statement(sql, params))).rowCount ?? 0,
        lock: async (name) => void (await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [name])),
      };
      this.connections.set(tx, client);
      result = await fn(tx);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true; // do not hand a connection in an unknown state back to the pool
      });
      throw error;
    } finally {
      client.release(broken);
    }
    if (change) await this.announce(change);
    return result;
  }

  /**
   * `COPY ... FROM STDIN` inside `tx`, fed with `chunks` of COPY text as they come (with
   * backpressure, so memory stays bounded). If `chunks` throws, the COPY is aborted
   * (CopyFail) and the error passed on: the transaction then rolls back as usual.
   */
  async copyIn(tx: Transaction, sql: string, chunks: AsyncIterable<string>): Promise<void> {
    const client = this.connections.get(tx);
    if (!client) throw new Error('copyIn needs an open transaction of this database');
    await pipeline(Readable.from(chunks), client.query(copyFrom(sql)));
  }

  private async query<T extends Row>(db: Queryable, sql: string, params?: Params): Promise<T[]> {
    return (await db.query<T>(this.statement(sql, params))).rows;
  }

  private statement(sql: string, params: Params = {}): pg.QueryConfig {
    let prepared = this.prepared.get(sql);
    if (!prepared) {
      const names: string[] = [];
      const text = sql.replace(/@([A-Za-z_]\w*)/g, (_, name: string) => {
        let at = names.indexOf(name);
        if (at < 0) at = names.push(name) - 1;
        return `$${at + 1}`;
      });
      const name = `q_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
      prepared = { name, text, names };
      this.prepared.set(sql, prepared);
    }
    const named = params as Record<string, unknown>;
    const values = prepared.names.map((name) => {
      if (!(name in named)) throw new Error(`missing named parameter "${name}"`);
      return named[name];
    });
    return { name: prepared.name, text: prepared.text, values };
  }

  async migrate(): Promise<{ applied: number[] }> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // Several processes may start at once: one migrates, the others wait and then find nothing to do.
      await client.query("SELECT pg_advisory_xact_lock(hashtext('results-api:migrate:' || $1::text))", [this.schema ?? '']);
      if (this.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      const applied: number[] = [];
      for (const m of postgresMigrations) {
        if (done.has(m.version)) continue;
        if (m.sql) await client.query(m.sql);
        for (const step of m.rewrites ?? []) {
          await runRowRewrite(
            step,
            async (params) => (await client.query<Record<string, unknown>>(this.statement(step.select, params))).rows,
            (values) => client.query(this.statement(step.update, values)),
          );
        }
        await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [m.version, this.clock.now()]);
        applied.push(m.version);
      }
      await client.query('COMMIT');
      return { applied };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  poolStats(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

/** Adds `-c search_path=<schema>` to the URL's startup options (the URL's own options win otherwise). */
function withSearchPath(databaseUrl: string, schema: string): string {
  const url = new URL(databaseUrl);
  const existing = url.searchParams.get('options');
  url.searchParams.set('options', [existing, `-c search_path=${schema}`].filter(Boolean).join(' '));
  return url.toString();
}
