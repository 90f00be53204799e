/** See processes.mjs: only what TypeScript tests import. */
export interface NodeHandle {
  name: string;
  pid: number;
  logPath: string;
  exitCode: number | string | undefined;
}

export function stop(handle: NodeHandle, graceMs?: number): Promise<void>;
