import { userInfo } from 'node:os';
import { loadConfig, type Config } from '../config.js';
import type { Runtime } from '../runtime.js';
import type { Actor } from '../store/store.js';

/**
 * What a command works with: the same configuration the server reads (so both work on the
 * same database) and the runtime opened from it.
 */

export function loadCliConfig(): Config {
  return loadConfig(process.env);
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
  try {
    return await fn(runtime, cliActor());
  } finally {
    await runtime.close();
  }
}
