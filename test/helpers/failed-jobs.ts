import type { ManualClock } from '../../src/clock.js';
import type { Store } from '../../src/store/open-store.js';

/**
 * Ends jobs in ERROR as a worker whose every attempt fails would: claims whichever job is due
 * (moving `clock` past the retry delays) and fails it, until each of `jobIds` is in error.
 * Any other job due meanwhile fails too: call it when only these are queued.
 */
export async function failJobs(store: Store, clock: ManualClock, jobIds: readonly string[], reason = 'ffmpeg failed: Output file #0 does not contain any stream'): Promise<void> {
  for (let round = 0; round < 100; round++) {
    const states = await Promise.all(jobIds.map(async (id) => (await store.jobs.get(id))?.state));
    if (states.every((state) => state === 'error')) return;
    const job = await store.jobs.claim('test-worker', 30_000);
    if (job) await store.jobs.fail(job.id, 'test-worker', reason);
    else clock.advance(5 * 60_000);
  }
  throw new Error(`jobs ${jobIds.join(', ')} did not end in error`);
}
