import { LocalChangeFeed, type ChangeFeed } from '../changes/change-feed.js';
import type { Clock } from '../clock.js';
import { AuditLog } from './audit-log.js';
import { CredentialRepository } from './credentials.js';
import type { Announce, Database } from './database.js';
import { DirectoryRepository } from './directory.js';
import type { PostgresOptions } from './postgres/postgres-database.js';
import { SessionRepository, type SessionBulkWriter } from './sessions.js';
import { SettingsRepository } from './settings.js';
import { SigningKeyRepository } from './signing-keys.js';
import { SqliteDatabase } from './sqlite/sqlite-database.js';
import { sqliteSessionWriter } from './sqlite/session-import.js';
import { TokenRevocationRepository } from './token-revocations.js';

/** Every repository over one database. Code that needs a part names that part. */
export interface Store {
  readonly database: Database;
  readonly credentials: CredentialRepository;
  readonly directory: DirectoryRepository;
  readonly sessions: SessionRepository;
  readonly signingKeys: SigningKeyRepository;
  readonly revocations: TokenRevocationRepository;
  readonly audit: AuditLog;
  readonly settings: SettingsRepository;
}

export interface OpenStoreOptions {
  clock: Clock;
  /** Where committed changes are announced. */
  announce: Announce;
  /** PostgreSQL only. */
  postgres?: PostgresOptions;
}

/** Opens (without migrating) the database named by DATABASE_URL: `sqlite:<path>` or `postgres://...`. */
export async function openStore(databaseUrl: string, options: OpenStoreOptions): Promise<Store> {
  const { clock, announce } = options;
  let database: Database;
  let bulkWriter: SessionBulkWriter;
  if (databaseUrl.startsWith('sqlite:')) {
    const sqlite = new SqliteDatabase(databaseUrl.slice('sqlite:'.length), clock, announce);
    database = sqlite;
    bulkWriter = sqliteSessionWriter(sqlite);
  } else {
    // Loaded only for PostgreSQL: an embedded server never pays for pg.
    const [{ PostgresDatabase }, { postgresSessionWriter }] = await Promise.all([
      import('./postgres/postgres-database.js'),
      import('./postgres/session-import.js'),
    ]);
    const postgres = new PostgresDatabase(databaseUrl, clock, announce, options.postgres);
    database = postgres;
    bulkWriter = postgresSessionWriter(postgres);
  }
  return {
    database,
    credentials: new CredentialRepository(database, clock),
    directory: new DirectoryRepository(database, clock),
    sessions: new SessionRepository(database, clock, bulkWriter),
    signingKeys: new SigningKeyRepository(database, clock),
    revocations: new TokenRevocationRepository(database, clock),
    audit: new AuditLog(database, clock),
    settings: new SettingsRepository(database),
  };
}

/**
 * The migrated store, announcing every committed change on the change feed: Redis when
 * REDIS_URL is set (every process hears it), otherwise this process only. The server and
 * every CLI command open it here, so whatever either changes reaches every cache.
 */
export async function openStoreWithFeed(
  config: { databaseUrl: string; redisUrl: string | undefined },
  clock: Clock,
): Promise<{ store: Store; feed: ChangeFeed; close(): Promise<void> }> {
  let feed: ChangeFeed = new LocalChangeFeed();
  if (config.redisUrl) {
    // Loaded only when configured: an embedded server never pays for ioredis.
    const { RedisChangeFeed } = await import('../changes/redis-change-feed.js');
    feed = await RedisChangeFeed.connect(config.redisUrl);
  }
  const changes = feed;
  const store = await openStore(config.databaseUrl, { clock, announce: (change) => changes.publish(change) }).catch(async (error: unknown) => {
    await changes.close().catch(() => undefined);
    throw error;
  });
  const close = async () => {
    await changes.close().catch(() => undefined);
    await store.database.close();
  };
  try {
    await store.database.migrate();
  } catch (error) {
    await close();
    throw error;
  }
  return { store, feed, close };
}
