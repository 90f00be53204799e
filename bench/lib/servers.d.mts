/** See servers.mjs: only what TypeScript tests import. */
import type { NodeHandle } from './processes.mjs';

export interface StartedServer {
  name: string;
  handle: NodeHandle;
  pid: number;
  url: string;
}

export function startServer(
  name: string,
  databaseUrl: string,
  options: {
    logDir: string;
    logLevel: string;
    cwd: string;
    cli: string;
    workers: number;
    adminListener?: boolean;
    nodeArgs?: string[];
    env?: Record<string, string>;
  },
): Promise<StartedServer>;
