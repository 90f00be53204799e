import { userInfo } from 'node:os';
import { loadConfig, type Config } from '../config.js';
import type { Outage } from '../observability/outage.js';
import type { Runtime } from '../runtime.js';
import type { Actor } from '../store/store.js';

/**
 * What a command works with: the same configuration the server reads (so both work on the
 * same database) and the runtime opened from it.
 */

export function loadCliConfig(): Config {
  return loadConfig(process.env, process.stdout.isTTY === true);
}

/** Who the audit log names for a CLI change: the operating-system user running it. */
export function cliActor(): Actor {
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    // No passwd entry (e.g. an arbitrary uid in a container).
    name = process.env.USER || `uid-${process.getuid?.() ?? 'unknown'}`;
  }
  return { actor: `cli:${name}` };
}

/** Opens the runtime, runs `fn` with it and closes it, whatever happens. */
export async function withRuntime<T>(fn: (runtime: Runtime, by: Actor) => Promise<T>): Promise<T> {
  const config = loadCliConfig();
  // Loaded on first use, so --help and argument mistakes answer without loading the database drivers.
  const { openRuntime } = await import('../runtime.js');
  const runtime = await openRuntime(config);
  if (runtime.redis) warnOnceIfRedisDown(runtime.redis.outage);
  try {
    return await fn(runtime, cliActor());
  } finally {
    await runtime.close();
  }
}

/**
 * A command does not need Redis: its change is committed to the database, which every server
 * re-reads within one second. The operator is told once that the instant fan-out was missed.
 */
export function warnOnceIfRedisDown(outage: Outage): void {
  let told = false;
  outage.onChange((event) => {
    if (event.state !== 'down' || told) return;
    told = true;
    process.stderr.write(
      `warning: Redis (REDIS_URL) is unreachable (${event.reason}); changes are saved in the database and servers pick them up within one second\n`,
    );
  });
}
