import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const CLI = resolve(import.meta.dirname, '../../dist/cli/main.js');

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** The operations listener's /metrics (undefined with METRICS_PORT=off). */
  metricsUrl: string | undefined;
  /** Every line the server logged, for assertions. */
  lines: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the built `results-api serve` (one process unless `args` say otherwise) on a free
 * port (and its metrics on another) and resolves once it listens. The caller passes the
 * environment, as an operator would.
 */
export async function startServerProcess(
  env: Record<string, string>,
  args: string[] = ['--workers', '1'],
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', METRICS_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let metricsUrl: string | undefined;
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`server did not start within 20 s: ${stderr}`)), 20_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      // Logged before the public address (by the process alone, or the primary before its workers).
      const metricsAddress = /"metricsAddress":"(http:\/\/[^"]+)"/.exec(line)?.[1];
      if (metricsAddress) metricsUrl = `${metricsAddress}/metrics`;
      const address = /"address":"(http:\/\/[^"]+)"/.exec(line)?.[1];
      if (address) {
        clearTimeout(timer);
        done(address);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`server exited with ${code} before listening: ${stderr}`));
    });
  });
  return {
    child,
    url,
    metricsUrl,
    lines,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(killer);
      return code;
    },
  };
}
