/**
 * better-sqlite3 12, compiled against Node 24.19+ headers, aborts the whole process when V8
 * collects its statements outside JavaScript (nodejs/node#65446; docs/OPERATING.md, "Node.js
 * versions"). Every server and CLI process prepares statements, so this runs
 * statement-churn.mjs, with the driver the service loads on this Node (src/store/sqlite/driver.ts),
 * in a child process of the Node under test and expects a clean exit: on an affected build it
 * dies of SIGABRT instead.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sqliteDriverPackage } from '../../src/store/sqlite/driver.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

const CHURN = fileURLToPath(new URL('./statement-churn.mjs', import.meta.url));

function runChurn(): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--stress-compaction', CHURN], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], timeout: 25_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe(`better-sqlite3 on Node ${process.version} (Node-API ${process.versions.napi}: ${sqliteDriverPackage(Number(process.versions.napi))})`, () => {
  it('survives its statements being garbage-collected', async () => {
    const result = await runChurn();
    expect(result.stderr).not.toContain('Assertion failed');
    expect(result).toMatchObject({ code: 0, signal: null, stdout: 'done\n' });
  });
});

describe('the driver for each Node-API version', () => {
  it('is better-sqlite3 13 (Node-API 10, binaries in the package) from Node 22.14; the compiled 12 line before', () => {
    expect([8, 9, 10, 11].map(sqliteDriverPackage)).toEqual(['better-sqlite3-node20', 'better-sqlite3-node20', 'better-sqlite3', 'better-sqlite3']);
  });
});
