/**
 * better-sqlite3 is compiled against the running Node's headers. Built against Node 24.19+
 * headers, its statements abort the whole process when V8 collects them outside JavaScript
 * (nodejs/node#65446; README "Node.js versions"). Every server and CLI process prepares
 * statements, so this runs the pattern in a child process of the Node under test and expects
 * a clean exit: on an affected build it dies of SIGABRT instead.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

// Thousands of statements dropped before each timer wait: V8 collects them from its own tasks,
// outside JavaScript, which is where an affected build aborts (every run of it, on 24.21.0).
const CHURN = `
const Database = require('better-sqlite3');
const { setTimeout: sleep } = require('node:timers/promises');
(async () => {
  const db = new Database(':memory:');
  for (let round = 0; round < 20; round++) {
    for (let i = 0; i < 2000; i++) db.prepare('SELECT ' + i + ' + ? AS x').get(round);
    await sleep(50);
  }
  db.close();
  console.log('done');
})();
`;

function runChurn(): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CHURN], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], timeout: 25_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe(`better-sqlite3 on Node ${process.version}`, () => {
  it('survives its statements being garbage-collected', async () => {
    const result = await runChurn();
    expect(result.stderr).not.toContain('Assertion failed');
    expect(result).toMatchObject({ code: 0, signal: null, stdout: 'done\n' });
  });
});
