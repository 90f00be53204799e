/** Stores opened directly (no runtime) for suites that test the repositories themselves. */
import { systemClock, type Clock } from '../../src/clock.js';
import type { Announce } from '../../src/store/database.js';
import { openStore, type Store } from '../../src/store/open-store.js';

const announceNothing: Announce = async () => undefined;

/** An unmigrated store on a SQLite file. */
export function openSqliteStore(path: string, clock: Clock, announce = announceNothing): Promise<Store> {
  return openStore(`sqlite:${path}`, { clock, announce });
}

/** An unmigrated store on PostgreSQL, its tables in `schema`. */
export function openPostgresStore(url: string, clock: Clock, schema: string, announce = announceNothing): Promise<Store> {
  return openStore(url, { clock, announce, postgres: { schema, poolSize: 4 } });
}

/** An unmigrated store on the database a URL names, as a CLI command would open it, announcing nothing. */
export function openStoreAt(databaseUrl: string, clock: Clock = systemClock): Promise<Store> {
  return openStore(databaseUrl, { clock, announce: announceNothing });
}
