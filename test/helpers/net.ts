/** Small waiting and networking helpers the process-level suites share. */

export { freePort } from '../../bench/lib/free-port.mjs';

/** Polls until `check` passes or `ms` pass (then its last failure is thrown): the bound a promise to operators names. */
export async function within(ms: number, check: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
