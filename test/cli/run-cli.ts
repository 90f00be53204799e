import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built executable: CLI tests run what users run (`npm test` builds first). */
export const CLI_PATH = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * A scratch directory with its own SQLite database, and the environment that points the CLI
 * at it. Only PATH and HOME come from the outer environment, so a developer's PORT or
 * DATABASE_URL cannot leak into a test.
 */
export interface CliSandbox {
  dir: string;
  dbPath: string;
  databaseUrl: string;
  env: Record<string, string>;
  /** Runs `results-api <args>` to completion. */
  run(args: string[], extraEnv?: Record<string, string>): Promise<CliResult>;
  /** Runs with --json appended, expects exit 0 and returns the parsed stdout. */
  json<T = unknown>(args: string[], extraEnv?: Record<string, string>): Promise<T>;
  /** Writes a file in the sandbox and returns its path. */
  file(name: string, content: string): string;
  cleanup(): void;
}

export function cliSandbox(): CliSandbox {
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run \`npm run build\` first`);
  const dir = mkdtempSync(join(tmpdir(), 'results-api-cli-'));
  const dbPath = join(dir, 'results.db');
  const databaseUrl = `sqlite:${dbPath}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    // `serve` would otherwise take the fixed default 9464, which parallel tests would share.
    METRICS_PORT: '0',
    // Likewise the admin listener's default 8081.
    ADMIN_PORT: '0',
    // The default credentials file (~/.config/results-api/credentials.json) is the sandbox's, never the developer's.
    XDG_CONFIG_HOME: join(dir, 'config'),
  };
  const run = (args: string[], extraEnv: Record<string, string> = {}) => runCli(args, { ...env, ...extraEnv }, dir);
  return {
    dir,
    dbPath,
    databaseUrl,
    env,
    run,
    async json<T>(args: string[], extraEnv?: Record<string, string>): Promise<T> {
      const result = await run([...args, '--json'], extraEnv);
      if (result.code !== 0) {
        throw new Error(`results-api ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      }
      return JSON.parse(result.stdout) as T;
    },
    file(name: string, content: string): string {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function runCli(args: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
