import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, adminConsole, registerAdminConsole } from '../../src/admin/console-route.js';
import { ADMIN_PLUGINS } from '../../src/admin/plugins.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function consoleApp(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'console-build-'));
  dirs.push(dir);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const app = Fastify();
  await registerAdminConsole(app, { buildDir: dir });
  return app;
}

describe('the console route', () => {
  it('is on the admin listener: serve registers every ADMIN_PLUGINS entry', () => {
    expect(ADMIN_PLUGINS).toContain(adminConsole);
  });

  it('serves the page at / and /setup (setup links), revalidated, under the console policy', async () => {
    const app = await consoleApp({ 'index.html': '<!doctype html><title>console</title>', 'main-ABC.js': 'export {};' });
    for (const url of ['/', '/setup']) {
      const res = await app.inject({ url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(res.body).toContain('<title>console</title>');
    }
    const asset = await app.inject({ url: '/console/main-ABC.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-security-policy']).toBe(CONSOLE_CSP);
    // Only the build's own files: nothing above it.
    expect((await app.inject({ url: '/console/../package.json' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/console/index.html' })).statusCode).toBe(404);
  });

  it('says how to build it when it is not built: 503 with Retry-After, never a stack trace', async () => {
    const app = await consoleApp({});
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('60');
    expect(res.body).toContain('npm run build');
    expect((await app.inject({ url: '/console/main.js' })).statusCode).toBe(404);
  });
});
