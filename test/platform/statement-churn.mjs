// Prepares thousands of statements and drops them before each timer wait, so V8 collects them
// from its own tasks, outside JavaScript: where a better-sqlite3 12 built against Node 24.19+
// headers aborts (nodejs/node#65446). Loads the driver the service loads on this Node
// (dist/store/sqlite/driver.js: `npm run build` first). Prints "done" when it survives. Run it
// with --stress-compaction: without it, whether V8 collects from a task depends on timing.
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { sqliteDriver } from '../../dist/store/sqlite/driver.js';

const Database = sqliteDriver();

async function churn() {
  const db = new Database(':memory:');
  for (let round = 0; round < 20; round++) {
    for (let i = 0; i < 2000; i++) db.prepare('SELECT ' + i + ' + ? AS x').get(round);
    await sleep(100);
  }
  db.close();
}

// Not top-level await: with the module still evaluating, V8 collects differently.
churn().then(() => process.stdout.write('done\n'));
