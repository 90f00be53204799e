/**
 * The processes a run starts (servers, references, the import CLI), and what the harness
 * reads about them from /proc: CPU time and resident memory. Every child is tracked, so
 * `stopAll` ends exactly the processes this run started, and nothing else.
 */
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';

const EXIT_WITH_PARENT = pathToFileURL(fileURLToPath(new URL('./exit-with-parent.mjs', import.meta.url))).href;

const children = new Set();

/**
 * Starts `node [nodeArgs] script [args]` with its output in `<logDir>/<name>.log`
 * (a file, not a pipe: the harness spends no CPU relaying a busy server's logs).
 */
export function startNode({ name, script, args = [], nodeArgs = [], env, cwd, logDir }) {
  const logPath = join(logDir, `${name}.log`);
  const fd = openSync(logPath, 'a');
  const child = spawn(process.execPath, ['--import', EXIT_WITH_PARENT, ...nodeArgs, script, ...args], {
    cwd,
    env,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const handle = {
    name,
    child,
    pid: child.pid,
    logPath,
    exitCode: undefined,
    exited: new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        handle.exitCode = code ?? signal;
        children.delete(handle);
        resolve(handle.exitCode);
      });
      child.on('error', (err) => {
        handle.exitCode = err.message;
        children.delete(handle);
        resolve(handle.exitCode);
      });
    }),
    /** The last lines it printed, to explain a failure. */
    logTail(lines = 20) {
      try {
        return readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '';
      }
    },
  };
  children.add(handle);
  return handle;
}

/** Resolves once `url` answers any HTTP response; fails if the process exits or time runs out. */
export async function waitForHttp(handle, url, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (handle.exitCode !== undefined) {
      throw new Error(`${handle.name} exited (${handle.exitCode}) before it served ${url}:\n${handle.logTail()}`);
    }
    if (await answers(url)) return;
    await sleep(100);
  }
  throw new Error(`${handle.name} did not answer ${url} within ${timeoutMs} ms:\n${handle.logTail()}`);
}

function answers(url) {
  return new Promise((resolve) => {
    const req = httpGet(url, (res) => {
      res.resume();
      res.on('end', () => resolve(true));
      res.on('error', () => resolve(false));
    });
    req.setTimeout(2000, () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/** Stops one process: SIGTERM, then SIGKILL if it is still there after `graceMs`. */
export async function stop(handle, graceMs = 5000) {
  if (handle.exitCode !== undefined) return;
  handle.child.kill('SIGTERM');
  const done = await Promise.race([handle.exited.then(() => true), sleep(graceMs, false, { ref: false })]);
  if (!done) {
    handle.child.kill('SIGKILL');
    await handle.exited;
  }
}

/** Stops every process this run started. */
export async function stopAll() {
  await Promise.all([...children].map((handle) => stop(handle)));
}

/** Last resort on exit: synchronous, so it also works from process.on('exit'). */
export function killAllNow() {
  for (const handle of children) {
    if (handle.exitCode === undefined) handle.child.kill('SIGKILL');
  }
}

let clockTicks;
function ticksPerSecond() {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name is in parentheses and may hold spaces: count fields after the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * `pid` and every process below it: a server may be a cluster (`serve --workers N`), whose
 * primary does part of the work (rate-limit counters over IPC) and whose workers do the rest.
 */
export function processTree(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(statFields(entry)[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // Gone since readdir.
    }
  }
  const tree = [];
  const walk = (p) => {
    tree.push(p);
    for (const child of children.get(p) ?? []) walk(child);
  };
  walk(pid);
  return tree;
}

/** User + system CPU seconds used so far by each process of the tree, by pid (all threads). */
export function cpuSeconds(pid) {
  const used = new Map();
  for (const p of processTree(pid)) {
    try {
      const fields = statFields(p);
      used.set(p, (Number(fields[11]) + Number(fields[12])) / ticksPerSecond());
    } catch {
      // Exited in between: its time is lost, which a run's total can bear.
    }
  }
  return used;
}

/** CPU seconds the tree used between two readings (processes started in between count from 0). */
export function cpuSecondsBetween(before, after) {
  let total = 0;
  for (const [p, seconds] of after) total += seconds - (before.get(p) ?? 0);
  return total;
}

/**
 * Resident memory of the tree in MB: `peak` is the largest peak (VmHWM) of one process,
 * `peakTotal` the sum of the processes' peaks, `rss` the current total.
 */
export function memoryMb(pid) {
  let rss = 0;
  let peak = 0;
  let peakTotal = 0;
  let processes = 0;
  for (const p of processTree(pid)) {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
      rss += kb('VmRSS') / 1024;
      peak = Math.max(peak, kb('VmHWM') / 1024);
      peakTotal += kb('VmHWM') / 1024;
      processes++;
    } catch {
      // Exited in between.
    }
  }
  return { rss, peak, peakTotal, processes };
}

/** Restarts the peak-RSS count (VmHWM) of every process of the tree; false where Linux does not allow it. */
export function resetPeakRss(pid) {
  try {
    for (const p of processTree(pid)) writeFileSync(`/proc/${p}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
