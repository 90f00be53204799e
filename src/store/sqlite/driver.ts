import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** The better-sqlite3 constructor (its module's export). */
export type SqliteDriver = typeof BetterSqlite3;

/**
 * Which better-sqlite3 this Node loads. better-sqlite3 13 is a Node-API 10 addon that ships
 * its binaries in the npm package: nothing is compiled at install, and no binary depends on
 * the Node headers it was built with (the 12 line compiled against Node 24.19+ headers aborts
 * the process, nodejs/node#65446). Node-API 10 needs Node ≥ 22.14; older Node (20) loads the
 * optional dependency `better-sqlite3-node20`, the 12 line, compiled at install.
 */
export const sqliteDriverPackage = (napiVersion: number): 'better-sqlite3' | 'better-sqlite3-node20' =>
  napiVersion >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20';

let loaded: SqliteDriver | undefined;

/** Loads the driver for the running Node once; a missing one is named with what to do. */
export function sqliteDriver(): SqliteDriver {
  if (loaded) return loaded;
  const name = sqliteDriverPackage(Number(process.versions.napi ?? 0));
  try {
    loaded = createRequire(import.meta.url)(name) as SqliteDriver;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    throw new Error(
      `SQLite: ${name} is not installed. On Node ${process.version} (Node-API ${process.versions.napi}) it is the optional ` +
        'dependency compiled at npm install, which failed (a C++ compiler and Python are needed): run `npm rebuild better-sqlite3-node20` ' +
        'to see why, or use Node 22.14 or later, which needs no compiler. See docs/OPERATING.md, "Node.js versions".',
    );
  }
  return loaded;
}
