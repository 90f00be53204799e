import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResultsClient, type ApiForm, type FetchFunction, type ResultsClientOptions } from '@results-api/client';
import type { SeededClient } from '../helpers/seed.js';
import type { TestApp } from '../helpers/test-app.js';

/** One request as the SDK sent it. */
export interface SentRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string | undefined;
}

/** The global fetch, recording every request; `onResponse` may inspect (a clone of) each answer. */
export function recordingFetch(onResponse?: (request: SentRequest, response: Response) => Promise<void>): {
  fetch: FetchFunction;
  sent: SentRequest[];
  tokenRequests: () => SentRequest[];
  apiRequests: () => SentRequest[];
} {
  const sent: SentRequest[] = [];
  const fetchFn: FetchFunction = async (input, init) => {
    const request: SentRequest = {
      method: init.method ?? 'GET',
      url: new URL(input),
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : undefined,
    };
    sent.push(request);
    const response = await fetch(input, init);
    if (onResponse) await onResponse(request, response.clone());
    return response;
  };
  return {
    fetch: fetchFn,
    sent,
    tokenRequests: () => sent.filter((r) => r.url.pathname.endsWith('/v1/token')),
    apiRequests: () => sent.filter((r) => !r.url.pathname.endsWith('/v1/token')),
  };
}

/** A client of the test app for `client`, in `form`. */
export function clientFor(
  t: TestApp,
  client: Pick<SeededClient, 'clientId' | 'clientSecret'>,
  form: ApiForm,
  extra: Partial<ResultsClientOptions> = {},
): ResultsClient {
  return new ResultsClient({
    authUrl: t.url,
    baseUrl: t.url,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    form,
    ...(form === 'B' ? { authorizationServerId: t.runtime.servers.custom.id } : {}),
    ...extra,
  });
}

/** A wait that returns at once and remembers how long it was asked to wait. */
export function recordingSleep(onSleep?: (ms: number) => void): {
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  waits: number[];
} {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms, signal) => {
      signal.throwIfAborted();
      waits.push(ms);
      onSleep?.(ms);
    },
  };
}

/**
 * A scripted HTTP server on 127.0.0.1, for what the real server never does on purpose
 * (5xx, dropped connections, hanging). The token endpoint always succeeds; every other
 * request takes the next scripted answer.
 */
export async function startStub(
  script: ((req: IncomingMessage, res: ServerResponse) => void)[],
): Promise<{ url: string; apiHits: () => number; tokenHits: () => number; close(): Promise<void> }> {
  let apiHits = 0;
  let tokenHits = 0;
  const server = createServer((req, res) => {
    if (req.url?.endsWith('/v1/token')) {
      tokenHits++;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ token_type: 'Bearer', expires_in: 3600, access_token: `stub-token-${tokenHits}`, scope: 'studies:read' }));
      return;
    }
    const step = script[Math.min(apiHits, script.length - 1)]!;
    apiHits++;
    step(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiHits: () => apiHits,
    tokenHits: () => tokenHits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A stub answer: status, headers and a JSON body. */
export const reply =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

/** A stub answer that drops the connection without a response. */
export const dropConnection = (req: IncomingMessage): void => {
  req.socket.destroy();
};

/** A stub answer that never comes; `onRequest` says the request arrived. */
export const hang =
  (onRequest?: () => void) =>
  (): void => {
    onRequest?.();
  };

export const emptyPage = (testId: string) => ({
  testId,
  sessions: [],
  meta: { pagination: { limit: 25, offset: 0, totalCount: 0, rowsPerPage: 25, pageNumber: 1, totalPages: 0 } },
});
