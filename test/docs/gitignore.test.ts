import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = new URL('../..', import.meta.url);

/** Is `path` ignored by the repository's .gitignore? (null: not in a git checkout.) */
function ignored(path: string): boolean | null {
  try {
    execFileSync('git', ['check-ignore', '--quiet', '--no-index', path], { cwd: REPO_ROOT, stdio: 'ignore' });
    return true;
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 1) return false;
    return null;
  }
}

const inCheckout = ignored('package.json') !== null;

describe.skipIf(!inCheckout)('.gitignore', () => {
  it.each([
    // The README's and CLIENTS.md's Python steps, run from the repository's root or the client's folder.
    '.venv/bin/python',
    'clients/python/.venv/bin/python',
    'clients/python/src/results_api_client/__pycache__/client.cpython-311.pyc',
    'clients/python/src/results_api_client.egg-info/PKG-INFO',
    // What npm install, npm start and npm test leave.
    'node_modules/x',
    'dist/cli/main.js',
    'data/results.db',
  ])('ignores %s', (path) => {
    expect(ignored(path)).toBe(true);
  });

  it.each(['clients/python/src/results_api_client/client.py', 'src/cli/main.ts', 'package-lock.json'])('keeps %s', (path) => {
    expect(ignored(path)).toBe(false);
  });
});
