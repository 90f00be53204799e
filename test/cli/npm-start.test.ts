import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliSandbox, type CliSandbox } from './run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

describe('npm start', () => {
  let cli: CliSandbox;
  beforeAll(() => {
    cli = cliSandbox();
  });
  afterAll(() => cli.cleanup());

  it('starts what was built (no build step) and stops every server process on SIGTERM to npm', async () => {
    const scripts = (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.prestart).toBeUndefined();

    // Two workers: the primary and both workers must go.
    const npm = spawn('npm', ['start', '--', '--workers', '2'], {
      cwd: ROOT,
      env: { ...cli.env, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pids = new Set<number>();
    let stderr = '';
    npm.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const npmExited = new Promise<void>((done) => npm.once('exit', () => done()));
    try {
      const ports = await new Promise<number[]>((done, fail) => {
        const listening: number[] = [];
        createInterface({ input: npm.stdout }).on('line', (line) => {
          if (!line.startsWith('{')) return;
          const entry = JSON.parse(line) as { pid?: number; address?: string };
          if (entry.pid) pids.add(entry.pid);
          const port = entry.address && Number(new URL(entry.address).port);
          if (port) listening.push(port);
          if (listening.length === 2) done(listening);
        });
        void npmExited.then(() => fail(new Error(`npm start exited before both workers listened: ${stderr}`)));
      });
      expect(pids.size).toBe(3);
      expect(await portOpen(ports[0]!)).toBe(true);

      npm.kill('SIGTERM');
      await npmExited;
      // npm waits for its child; give the processes a bounded number of looks, not a deadline.
      for (let look = 0; look < 50 && [...pids].some(alive); look++) await sleep(100);
      expect([...pids].filter(alive)).toEqual([]);
      expect(await portOpen(ports[0]!)).toBe(false);
    } finally {
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
      if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    }
  }, 60_000);
});
