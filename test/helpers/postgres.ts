/**
 * PostgreSQL for tests. Suites that need it call `describeIfPostgres` (or `requirePostgres`):
 * when the server is unreachable the suite is skipped with a visible warning, except in CI
 * (CI=true), where that is a failure: CI must never pass by skipping.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe } from 'vitest';

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** DATABASE_URL when it names PostgreSQL, otherwise the local default. */
export function postgresUrlForTests(): string {
  const url = process.env.DATABASE_URL;
  return url && /^postgres(ql)?:\/\//.test(url) ? url : DEFAULT_POSTGRES_URL;
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

let probe: Promise<string | null> | undefined;

/**
 * The URL to test against, or null (after a warning) when PostgreSQL is unreachable outside CI.
 * Throws when it is unreachable in CI. Probed once per test worker.
 */
export function requirePostgres(): Promise<string | null> {
  probe ??= (async () => {
    const url = postgresUrlForTests();
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return url;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (process.env.CI === 'true') {
        throw new Error(`PostgreSQL not reachable at ${redact(url)} (${reason}); CI=true, so this fails instead of skipping`);
      }
      console.warn(`PostgreSQL not reachable at ${redact(url)} (${reason}), skipping`);
      return null;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return probe;
}

/**
 * `describe` when PostgreSQL is reachable, `describe.skip` otherwise (so skipped tests still
 * show in the report). Use with top-level await: `await describeIfPostgres('x', (url) => ...)`.
 */
export async function describeIfPostgres(name: string, fn: (url: string) => void): Promise<void> {
  const url = await requirePostgres();
  if (url) describe(name, () => fn(url));
  else describe.skip(name, () => fn(postgresUrlForTests()));
}

/** A fresh schema name, so suites and tests can share one database in parallel. */
export function uniqueSchemaName(prefix = 't'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** Drops schemas made by uniqueSchemaName (and everything in them). */
export async function dropSchemas(url: string, schemas: Iterable<string>): Promise<void> {
  const names = [...schemas];
  if (names.length === 0) return;
  for (const name of names) {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`refusing to drop schema "${name}"`);
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // A few schemas per statement: a suite with a hundred schemas stays well inside the hook
    // timeout on a loaded machine, while each transaction's locks stay within
    // max_locks_per_transaction.
    for (let i = 0; i < names.length; i += 8) {
      await client.query(`DROP SCHEMA IF EXISTS ${names.slice(i, i + 8).join(', ')} CASCADE`);
    }
  } finally {
    await client.end();
  }
}

/** `url` with `schema` as its search_path: every connection opened from it works in that schema alone. */
export function inSchema(url: string, schema: string): string {
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  return scoped.href;
}

/**
 * A fresh schema of the test database as a DATABASE_URL (its name starting with `prefix`), or
 * null when PostgreSQL is unreachable outside CI (requirePostgres warns; in CI it throws).
 */
export async function freshPostgresSchema(prefix: string): Promise<{ url: string; drop(): Promise<void> } | null> {
  const base = await requirePostgres();
  if (!base) return null;
  const schema = uniqueSchemaName(prefix);
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  return { url: inSchema(base, schema), drop: () => dropSchemas(base, [schema]) };
}
