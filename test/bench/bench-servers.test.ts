import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stop } from '../../bench/lib/processes.mjs';
import { startServer } from '../../bench/lib/servers.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

describe('the servers the bench measures', () => {
  const work = mkdtempSync(join(tmpdir(), 'bench-servers-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** Starts `serve` as the bench does and returns what it logged while starting. */
  async function startupLog(name: string, adminListener?: boolean): Promise<string> {
    const server = await startServer(name, `sqlite:${join(work, `${name}.db`)}`, {
      logDir: work,
      logLevel: 'info',
      cwd: ROOT,
      cli: CLI,
      workers: 1,
      ...(adminListener === undefined ? {} : { adminListener }),
    });
    await stop(server.handle);
    return readFileSync(server.handle.logPath, 'utf8');
  }

  it('run the admin listener as production does, and none with --no-admin (to compare with builds that had none)', async () => {
    // The admin listener starts before the public one answers, so its line is in the log by then.
    const [withAdmin, withoutAdmin] = await Promise.all([startupLog('default'), startupLog('no-admin', false)]);
    expect(withAdmin).toContain('"listener":"admin"');
    expect(withoutAdmin).toContain('results-api listening on');
    expect(withoutAdmin).not.toContain('"listener":"admin"');
  }, 60_000);
});
