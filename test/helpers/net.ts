/** Small waiting and networking helpers the process-level suites share. */
import { createServer } from 'node:net';

/** A loopback port free now, for a server whose URL must be known before it listens. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

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
