/**
 * The video.download scenario on its own (it is also part of `node bench/run.mjs`, with
 * `--only video.download` to run just it there, after the run's seeding):
 *   node bench/video-download.mjs [--mb 100] [--runs 3] [--out FILE]
 * Needs a build (npm run build) and ffmpeg. Prints the result line; --out also writes the JSON.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { parseArgs } from 'node:util';
import { stopAll } from './lib/processes.mjs';
import { runVideoDownload } from './lib/video-scenario.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { mb: { type: 'string', default: '100' }, runs: { type: 'string', default: '3' }, out: { type: 'string' } } });
const work = mkdtempSync(join(tmpdir(), 'results-api-bench-video-'));
const log = (message) => process.stderr.write(`[bench] ${message}\n`);
try {
  const result = await runVideoDownload({
    cli: join(ROOT, 'dist', 'cli', 'main.js'),
    cwd: ROOT,
    work,
    logLevel: 'warn',
    megabytes: Number(values.mb),
    runs: Number(values.runs),
    log,
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (values.out) writeFileSync(values.out, `${JSON.stringify({ at: new Date().toISOString(), videoDownload: result }, null, 2)}\n`);
} finally {
  await stopAll();
  rmSync(work, { recursive: true, force: true });
}
