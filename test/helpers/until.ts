import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `check` until it holds, failing after `ms` with what did not happen: tests wait for
 * something a server, a job or a process does in its own time, never for a fixed sleep. The
 * default is generous: ffmpeg jobs on a busy shared machine.
 */
export async function until(what: string, check: () => Promise<boolean> | boolean, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await sleep(20);
  }
}
