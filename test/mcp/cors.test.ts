import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/net.js';
import { seed } from '../helpers/seed.js';
import { startTestApp } from '../helpers/test-app.js';
import { mintToken } from '../helpers/tokens.js';

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } });
const EXPOSED = 'Mcp-Session-Id, WWW-Authenticate, Mcp-Protocol-Version';

/** The response's headers whose names pass `wanted`. */
function headersNamed(res: Response, wanted: (name: string) => boolean): Record<string, string> {
  const found: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (wanted(name)) found[name] = value;
  });
  return found;
}

/** CORS on /mcp, header by header, for browser-based MCP clients (test/mcp/origin-browser.test.ts plays it in Chromium). */
describe('CORS on /mcp', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ port, env: { PUBLIC_URL: base } });
  afterAll(() => t.close());
  const s = await seed(t.runtime, { sessions: 1 });
  const preflight = (origin: string | undefined, method = 'POST') =>
    fetch(`${t.url}/mcp`, {
      method: 'OPTIONS',
      headers: { ...(origin === undefined ? {} : { origin }), 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
    });
  const post = (headers: Record<string, string>) =>
    fetch(`${t.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: INITIALIZE });

  it.each([base, 'http://localhost:6274'])('a preflight from %s is answered without a token: the methods and headers an MCP client sends', async (origin) => {
    const res = await preflight(origin);
    expect(res.status).toBe(204);
    expect(headersNamed(res, (name) => name.startsWith('access-control-') || name === 'vary' || name === 'allow')).toEqual({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers': 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID',
      'access-control-expose-headers': EXPOSED,
      'access-control-max-age': '7200',
      allow: 'POST, OPTIONS',
      vary: 'Origin',
    });
  });

  it('a preflight from an origin not allowed is refused (403), with no CORS header: the browser sends nothing', async () => {
    const res = await preflight('https://evil.example');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { type: string }).type).toContain('origin-refused');
    expect(headersNamed(res, (name) => name.startsWith('access-control-'))).toEqual({});
  });

  it('OPTIONS without Origin (not a browser) says what the endpoint allows, and nothing about CORS', async () => {
    const res = await preflight(undefined);
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('an allowed origin can read every answer: the 401 challenge, the served request and the 405 of GET', async () => {
    const origin = 'http://localhost:6274';
    const refused = await post({ origin });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(origin);
    expect(refused.headers.get('access-control-expose-headers')).toBe(EXPOSED);
    expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
    const token = await mintToken(t, s, 'B', `${base}/mcp`);
    const served = await post({ origin, authorization: `Bearer ${token}` });
    expect(served.status).toBe(200);
    expect(served.headers.get('access-control-allow-origin')).toBe(origin);
    expect(served.headers.get('vary')).toContain('Origin');
    const stream = await fetch(`${t.url}/mcp`, { headers: { origin, authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
    expect(stream.status).toBe(405);
    expect(stream.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it('a request without Origin gets no CORS header: nothing changes for CLIs and desktop clients', async () => {
    const res = await post({ authorization: `Bearer ${await mintToken(t, s, 'B', `${base}/mcp`)}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
