import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got, verified with the standardwebhooks library (nobody here wrote it). */
export interface Received {
  id: string;
  headers: Record<string, string>;
  body: string;
  /** The parsed envelope when the signature verified, null when it did not. */
  verified: { type: string; timestamp: string; data: Record<string, unknown> } | null;
  at: number;
}

/** What the receiver answers a request: a status (and headers), or nothing at all for `hangMs`. */
export type Answer = { status: number; headers?: Record<string, string> } | { hangMs: number };

/**
 * A real webhook receiver on 127.0.0.1: verifies each request as a receiver would and
 * records it. `answer` decides each response (200 by default).
 */
export async function startReceiver(secret: () => string, answer: (r: Received) => Answer = () => ({ status: 200 })) {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let verified: Received['verified'] = null;
      try {
        verified = new Webhook(secret()).verify(body, headers) as Received['verified'];
      } catch {
        verified = null;
      }
      const r: Received = { id: headers['webhook-id'] ?? '', headers, body, verified, at: Date.now() };
      received.push(r);
      const a = answer(r);
      if ('hangMs' in a) {
        setTimeout(() => res.writeHead(200).end(), a.hangMs).unref();
        return;
      }
      res.writeHead(a.status, a.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
