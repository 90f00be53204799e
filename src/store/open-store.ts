import { randomBytes } from 'node:crypto';
import { LocalChangeFeed, type ChangeFeed } from '../changes/change-feed.js';
import type { Clock } from '../clock.js';
import type { SharedRedis } from '../redis/shared-redis.js';
import { AdminRepository } from './admins.js';
import { AuditLog } from './audit-log.js';
import { CredentialRepository } from './credentials.js';
import type { Announce, Database } from './database.js';
import { ClipRepository } from './clips.js';
import { DirectoryRepository } from './directory.js';
import { JobRepository } from './jobs.js';
import { ReelRepository } from './reels.js';
import type { PostgresOptions } from './postgres/postgres-database.js';
import { SessionDetailsRepository } from './session-details.js';
import { SearchRepository } from './search.js';
import { SessionRepository, type SessionBulkWriter } from './sessions.js';
import { SettingsRepository } from './settings.js';
import { SigningKeyRepository } from './signing-keys.js';
import { SqliteDatabase } from './sqlite/sqlite-database.js';
import { sqliteSessionWriter } from './sqlite/session-import.js';
import { TokenRevocationRepository } from './token-revocations.js';
import { TranscriptRepository } from './transcripts.js';
import { UserAccountRepository } from './user-accounts.js';
import { AppRepository } from './apps.js';
import { VideoRepository } from './videos.js';
import { WebhookDeliveryRepository } from './webhook-deliveries.js';
import { WebhookPendingBatches } from './webhook-pending-batches.js';
import { WebhookRepository } from './webhooks.js';

/** Every repository over one database. Code that needs a part names that part. */
export interface Store {
  readonly database: Database;
  readonly credentials: CredentialRepository;
  readonly directory: DirectoryRepository;
  readonly sessions: SessionRepository;
  readonly sessionDetails: SessionDetailsRepository;
  readonly signingKeys: SigningKeyRepository;
  readonly revocations: TokenRevocationRepository;
  readonly audit: AuditLog;
  readonly settings: SettingsRepository;
  readonly transcripts: TranscriptRepository;
  readonly videos: VideoRepository;
  readonly admins: AdminRepository;
  readonly jobs: JobRepository;
  readonly clips: ClipRepository;
  readonly reels: ReelRepository;
  readonly userAccounts: UserAccountRepository;
  readonly apps: AppRepository;
  readonly webhooks: WebhookRepository;
  readonly webhookDeliveries: WebhookDeliveryRepository;
  /** The import's outbox in its compact form, expanded by each delivery claim. */
  readonly webhookBatches: WebhookPendingBatches;
  readonly search: SearchRepository;
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
  const webhooks = new WebhookRepository(database, clock);
  const webhookBatches = new WebhookPendingBatches(database, clock);
  return {
    database,
    credentials: new CredentialRepository(database, clock),
    directory: new DirectoryRepository(database, clock),
    sessions: new SessionRepository(database, clock, bulkWriter),
    sessionDetails: new SessionDetailsRepository(database),
    signingKeys: new SigningKeyRepository(database, clock),
    revocations: new TokenRevocationRepository(database, clock),
    audit: new AuditLog(database, clock),
    settings: new SettingsRepository(database),
    transcripts: new TranscriptRepository(database, clock),
    videos: new VideoRepository(database, clock),
    admins: new AdminRepository(database, clock),
    jobs: new JobRepository(database, clock),
    clips: new ClipRepository(database, clock),
    reels: new ReelRepository(database, clock),
    userAccounts: new UserAccountRepository(database, clock),
    apps: new AppRepository(database, clock),
    webhooks,
    webhookDeliveries: new WebhookDeliveryRepository(database, clock, webhooks),
    webhookBatches,
    search: new SearchRepository(database),
  };
}

/**
 * The migrated store, announcing every committed change on the change feed: Redis when
 * REDIS_URL is set (every process hears it; with Redis down, publishing is skipped and the
 * caches' one-second bound holds), otherwise this process only. The server and
 * every CLI command open it here, so whatever either changes reaches every cache.
 */
export async function openStoreWithFeed(
  config: { databaseUrl: string; redisUrl: string | undefined; redisKeyPrefix: string | undefined },
  clock: Clock,
): Promise<{ store: Store; feed: ChangeFeed; redis: SharedRedis | undefined; close(): Promise<void> }> {
  // Nothing is announced before Redis (if any) is connected below: migrating and reading
  // settings change nothing a cache holds.
  let feed: ChangeFeed = new LocalChangeFeed();
  let redis: SharedRedis | undefined;
  const store = await openStore(config.databaseUrl, { clock, announce: (change) => feed.publish(change) });
  const close = async () => {
    await feed.close().catch(() => undefined);
    await redis?.close();
    await store.database.close();
  };
  try {
    await store.database.migrate();
    // Transcripts imported before their cues were stored get them now, before anything reads them.
    await store.transcripts.storeMissingCues();
    // Sessions imported before search existed are indexed now (once; a no-op after).
    await store.search.indexBacklog();
    if (config.redisUrl) {
      // Two deployments on one Redis must not share rate limits or changes: by default the
      // prefix names this deployment's database, by an id generated once and kept there.
      const prefix = config.redisKeyPrefix ?? `results-api:${await store.settings.getOrSet('deployment_id', randomBytes(6).toString('hex'))}:`;
      // Loaded only when configured: an embedded server never pays for ioredis. Never waits for Redis.
      redis = new (await import('../redis/shared-redis.js')).SharedRedis(config.redisUrl, clock, prefix);
      feed = redis.feed;
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { store, feed, redis, close };
}
