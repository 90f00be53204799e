import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** Sends a keep-alive GET /healthz: the status line's code, or 'closed' if the server closes instead. */
function healthz(socket: Socket): Promise<number | 'closed'> {
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
    if (!socket.destroyed) socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
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
  it.each([
    ['a body', 'POST /oauth2/default/v1/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n'],
    ['headers', 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '],
  ])('a connection trickling %s is answered 408 and closed within the configured bound', async (_what, head) => {
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
    expect(await healthz(socket)).toBe(200);
    expect(await closedByServer(socket)).toBe(true);
  });
});

describe('connections per address', () => {
  const LIMIT = 3;
  let t: TestApp;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    t = await startTestApp({ env: { MAX_CONNECTIONS_PER_ADDRESS: String(LIMIT) } });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await t.close();
  });

  it('refuses an address its connections over the limit while others are served', async () => {
    const held: Socket[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const socket = await open(t.url, OTHER_ADDRESS);
      sockets.push(socket);
      held.push(socket);
      expect(await healthz(socket)).toBe(200);
    }
    for (let i = 0; i < LIMIT; i++) {
      const extra = await open(t.url, OTHER_ADDRESS);
      sockets.push(extra);
      expect(await healthz(extra)).toBe('closed');
    }
    // Another address, and the held connections, are still served.
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    expect(await healthz(held[0]!)).toBe(200);

    // A connection closed frees its place (the server hears of the close shortly after).
    held[0]!.destroy();
    let status: number | 'closed' = 'closed';
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      if (attempt > 0) await sleep(50);
      const next = await open(t.url, OTHER_ADDRESS);
      sockets.push(next);
      status = await healthz(next);
    }
    expect(status).toBe(200);
  });
});
