import type { Clock } from '../clock.js';
import type { Store } from './store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

/** Opens the store named by DATABASE_URL (`sqlite:<path>` or `postgres://...`). */
export async function openStore(databaseUrl: string, clock: Clock): Promise<Store> {
  if (databaseUrl.startsWith('sqlite:')) {
    return new SqliteStore(databaseUrl.slice('sqlite:'.length), clock);
  }
  const { PostgresStore } = await import('./postgres/postgres-store.js');
  return new PostgresStore(databaseUrl, clock);
}
