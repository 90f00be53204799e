/**
 * Preloaded (`node --import`) into every process the harness starts. When the harness dies,
 * even by SIGKILL, its children are re-parented; each notices within half a second and stops,
 * so a benchmark never leaves servers behind.
 */
import process from 'node:process';
import { setInterval, setTimeout } from 'node:timers';

const parent = process.ppid;
setInterval(() => {
  if (process.ppid === parent) return;
  // SIGTERM first, so a server shuts down cleanly (and `--cpu-prof` writes its profile).
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => process.exit(1), 5000).unref();
}, 500).unref();
