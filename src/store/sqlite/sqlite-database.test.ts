import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openSqliteStore } from '../../../test/helpers/stores.js';
import { describeStoreContract } from '../store.contract.js';

// A real file (not :memory:) so WAL mode and the file-backed paths are what gets tested.
const dir = mkdtempSync(join(tmpdir(), 'results-api-sqlite-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreContract('sqlite', (clock, announce) => openSqliteStore(join(dir, `store-${++n}.db`), clock, announce));
