import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from './run-cli.js';

/**
 * `results-api clips list --help | head`: a reader that goes away before the command has
 * written everything. The command exits quietly with 0, never with an EPIPE stack trace.
 */
function runWithReaderGone(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
    // The reader leaves before the command writes a byte: its first write meets a closed pipe.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

describe('a reader that goes away', () => {
  it.each([
    [['clips', 'list', '--help']],
    [['--help']],
    [['--version']],
  ])('results-api %j | (a reader that closed): exit 0, nothing on stderr', async (args) => {
    expect(await runWithReaderGone(args)).toEqual({ code: 0, signal: null, stderr: '' });
  });
});
