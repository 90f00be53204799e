import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminTestApp } from '../helpers/admin-app.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** An attacker on another loopback address than the test's own requests (127.0.0.1). */
const OTHER_ADDRESS = '127.0.0.2';

function open(baseUrl: string, localAddress?: string): Promise<Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends a keep-alive GET `path`: the status line's code, or 'closed' if the server closes instead. */
function get(socket: Socket, path = '/healthz'): Promise<number | 'closed'> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (!text.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      resolve(Number(text.split(' ')[1]));
    };
    socket.on('data', onData);
    socket.once('close', () => resolve('closed'));
    socket.once('error', () => resolve('closed'));
    if (!socket.destroyed) socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  });
}

/** Whether the server closes the connection while `bytes` are trickled one at a time (before the last). */
async function closedWhileTrickling(socket: Socket, head: string, bytes: number): Promise<{ closed: boolean; answer: string }> {
  let answer = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  socket.once('close', () => (closed = true));
  socket.on('error', () => {});
  socket.write(head);
  for (let sent = 0; sent < bytes && !closed; sent++) {
    socket.write('a');
    await sleep(100);
  }
  const result = { closed, answer };
  socket.destroy();
  return result;
}

describe('slow clients', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { HEADERS_TIMEOUT_SECONDS: '1', REQUEST_TIMEOUT_SECONDS: '1' } });
  });
  afterAll(() => t.close());

  // 100 bytes at one per 100 ms: the 1 s bound must end it long before the last byte.
  // (Trickled headers: on every listener, below.)
  it('a connection trickling a body is answered 408 and closed within the configured bound', async () => {
    const head = 'POST /oauth2/default/v1/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n';
    const outcome = await closedWhileTrickling(await open(t.url), head, 100);
    expect(outcome.closed).toBe(true);
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 408 /);
  }, 20_000);
});

/** Waits a bounded number of looks for the server to close `socket`; whether it did. */
async function closedByServer(socket: Socket, looks = 50): Promise<boolean> {
  let closed = false;
  socket.once('close', () => (closed = true));
  socket.on('error', () => {});
  for (let look = 0; look < looks && !closed; look++) await sleep(100);
  socket.destroy();
  return closed;
}

describe('idle connections', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Header and request bounds far away, so only the idle and keep-alive bounds can act.
    t = await startTestApp({
      env: { HEADERS_TIMEOUT_SECONDS: '300', REQUEST_TIMEOUT_SECONDS: '300', IDLE_TIMEOUT_SECONDS: '1', KEEP_ALIVE_TIMEOUT_SECONDS: '1' },
    });
  });
  afterAll(() => t.close());

  it('a connection that sends nothing is closed after the idle bound', async () => {
    expect(await closedByServer(await open(t.url))).toBe(true);
  });

  it('a keep-alive connection is closed after the keep-alive bound', async () => {
    const socket = await open(t.url);
    expect(await get(socket)).toBe(200);
    expect(await closedByServer(socket)).toBe(true);
  });
});

/** Each listener's base URL and a path it answers without credentials. */
interface Listener {
  name: string;
  url: () => string;
  path: string;
}

/** The public, admin and metrics listeners of one app, all bound by the same configuration. */
async function everyListener(env: Record<string, string>): Promise<Listener[]> {
  const { t, adminUrl } = await startAdminTestApp({ env });
  return [
    { name: 'public', url: () => t.url, path: '/healthz' },
    { name: 'admin', url: () => adminUrl, path: '/admin/api/openapi.json' },
    { name: 'metrics', url: () => new URL(t.metricsUrl).origin, path: '/metrics' },
  ];
}

describe('every listener holds the same bounds', async () => {
  const LIMIT = 3;
  const listeners = await everyListener({ MAX_CONNECTIONS_PER_ADDRESS: String(LIMIT), HEADERS_TIMEOUT_SECONDS: '1', REQUEST_TIMEOUT_SECONDS: '1' });
  const sockets: Socket[] = [];
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
  });

  it.each(listeners)('$name: refuses an address its connections over the limit while others are served', async ({ url, path }) => {
    const held: Socket[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const socket = await open(url(), OTHER_ADDRESS);
      sockets.push(socket);
      held.push(socket);
      expect(await get(socket, path)).toBe(200);
    }
    for (let i = 0; i < LIMIT; i++) {
      const extra = await open(url(), OTHER_ADDRESS);
      sockets.push(extra);
      expect(await get(extra, path)).toBe('closed');
    }
    // Another address, and the held connections, are still served.
    expect((await fetch(`${url()}${path}`)).status).toBe(200);
    expect(await get(held[0]!, path)).toBe(200);

    // A connection closed frees its place (the server hears of the close shortly after).
    held[0]!.destroy();
    let status: number | 'closed' = 'closed';
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      if (attempt > 0) await sleep(50);
      const next = await open(url(), OTHER_ADDRESS);
      sockets.push(next);
      status = await get(next, path);
    }
    expect(status).toBe(200);
    for (const socket of held) socket.destroy();
  });

  // 100 bytes at one per 100 ms: the 1 s header bound must end it long before the last byte.
  it.each(listeners)('$name: a connection trickling its headers is answered 408 and closed within the configured bound', async ({ url, path }) => {
    const outcome = await closedWhileTrickling(await open(url()), `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `, 100);
    expect(outcome.closed).toBe(true);
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 408 /);
  }, 20_000);
});
