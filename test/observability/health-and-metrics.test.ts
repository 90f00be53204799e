import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed, type Seeded } from '../helpers/seed.js';
import { capturedLogger } from '../helpers/captured-logs.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { authHeaders, basicAuthorization, mintToken, tokenUrl } from '../helpers/tokens.js';

describe('health, readiness and metrics', () => {
  let t: TestApp;
  let s: Seeded;

  beforeAll(async () => {
    t = await startTestApp();
    s = await seed(t.runtime, { sessions: 3 });
  });
  afterAll(() => t.close());

  it('200 /healthz: the process answers', async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('200 /readyz: names each dependency it checked', async () => {
    const res = await fetch(`${t.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', checks: { database: 'ok' } });
  });

  it('503 /readyz when the database does not answer', async () => {
    const broken = await startTestApp();
    await broken.runtime.store.database.close();
    try {
      const res = await fetch(`${broken.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'unavailable', checks: { database: 'failing' } });
    } finally {
      await broken.close();
    }
  });

  it('/metrics is not on the public port, so nobody there learns why an authentication failed', async () => {
    await fetch(tokenUrl(t, 'A'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuthorization('0oaunknownclient', 'wrong') },
      body: 'grant_type=client_credentials',
    });
    for (const path of ['/metrics', '/metrics/', '/metrics?format=json']) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status).toBe(404);
      const body = await res.text();
      expect(body).not.toContain('auth_failures_total');
      expect(body).not.toContain('unknown_client');
    }
    // The operations listener has them (loopback, operators only).
    expect(await (await fetch(t.metricsUrl)).text()).toMatch(/auth_failures_total\{kind="client",reason="unknown_client"\} 1/);
  });

  it('the operations listener serves GET /metrics and nothing else', async () => {
    const base = t.metricsUrl.replace(/\/metrics$/, '');
    expect((await fetch(`${base}/healthz`)).status).toBe(404);
    expect((await fetch(`${base}/api/v2/sessionResults?testId=${s.testId}`)).status).toBe(404);
    expect((await fetch(t.metricsUrl, { method: 'POST' })).status).toBe(404);
    const head = await fetch(t.metricsUrl, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('cache-control')).toBe('no-store');
  });

  it('/metrics counts requests by route and status, tokens issued and authentication failures', async () => {
    const token = await mintToken(t, s, 'B');
    await fetch(`${t.url}/api/v2/sessionResults?testId=${s.testId}`, { headers: authHeaders(token) });
    await fetch(`${t.url}/api/v2/sessionResults?testId=${s.testId}`, { headers: authHeaders('not-a-token') });
    await fetch(tokenUrl(t, 'A'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuthorization(s.clientId, 'wrong') },
      body: 'grant_type=client_credentials',
    });
    const res = await fetch(t.metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/v2\/sessionResults",status="200"\} 1/);
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/v2\/sessionResults",status="401"\} 1/);
    expect(text).toMatch(/oauth_tokens_issued_total\{server="custom"\} 1/);
    expect(text).toMatch(/auth_failures_total\{kind="client",reason="wrong_secret"\} 1/);
    expect(text).toMatch(/auth_failures_total\{kind="token",reason="not a compact JWS"\} 1/);
  });
});

describe('logs', () => {
  it('carry a request id on every request line and never a secret or a token', async () => {
    const { logger, lines } = capturedLogger();
    const t = await startTestApp({ logger });
    try {
      const s = await seed(t.runtime, { sessions: 2 });
      const token = await mintToken(t, s, 'B');
      // Secrets where they belong, and where a careless client might put them.
      await fetch(`${tokenUrl(t, 'B')}?client_secret=${s.clientSecret}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuthorization(s.clientId, s.clientSecret) },
        body: 'grant_type=client_credentials',
      });
      await fetch(`${t.url}/api/v2/sessionResults?testId=${s.testId}`, { headers: authHeaders(token) });
      await fetch(`${t.url}/v2/sessionResults?testId=${s.testId}`, { headers: authHeaders(token, 'token') });
      await fetch(`${t.url}/api/v2/sessionResults?testId=${s.testId}`, { headers: authHeaders(`${token}x`) });
      await fetch(`${t.url}/oauth2/${t.runtime.servers.custom.id}/v1/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: s.clientId, client_secret: s.clientSecret }),
      });
      // Secrets and tokens in URLs, on routes that exist and on ones that do not (issue 12).
      const secret = encodeURIComponent(s.clientSecret);
      const custom = t.runtime.servers.custom.id;
      for (const target of [
        `/api/v2/sessionResults?testId=${s.testId}&access_token=${token}`,
        `/api/v2/sessionResults?token=${token}`,
        `/v2/sessionResults?testId=${s.testId}&token=${token}`,
        `/api/v1/workspaces/${token}`,
        `/api/v1/workspaces/${s.workspaceId}?x=${token}`,
        `/%6fauth2/default/v1/token?client_secret=${secret}`,
        `/%6fauth2/${custom}/v1/token?client_id=${s.clientId}&client_secret=${secret}`,
        `//oauth2/default/v1/token?client_secret=${secret}`,
        `//oauth2/${custom}/v1/token?access_token=${token}`,
        `/OAUTH2/default/v1/token?client_secret=${secret}`,
        `/OAUTH2/${custom}/v1/introspect?token=${token}`,
        `/docs?client_secret=${secret}`,
        `/docs?q=${secret}`,
        `/nowhere/${secret}?${secret}`,
      ]) {
        await fetch(`${t.url}${target}`, { method: target.includes('/v1/token') ? 'POST' : 'GET' });
      }

      const text = lines.join('\n');
      expect(lines.length).toBeGreaterThan(10);
      expect(text).not.toContain(s.clientSecret);
      expect(text).not.toContain(encodeURIComponent(s.clientSecret));
      expect(text).not.toContain(token);
      expect(text).not.toContain(token.split('.')[2]!);
      expect(text).not.toContain(token.split('.')[1]!);
      // The requests above were logged, with what they could keep.
      expect(text).toContain('/%6fauth2/default/v1/token?client_secret=[redacted]');
      expect(text).toContain('//oauth2/default/v1/token?[redacted]');
      expect(text).toContain('/api/v1/workspaces/[redacted]');
      expect(text).toContain(`/api/v2/sessionResults?testId=${s.testId}&access_token=[redacted]`);
      const requestLines = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => 'req' in l || 'res' in l);
      expect(requestLines.length).toBeGreaterThan(0);
      for (const line of requestLines) expect(line.reqId).toEqual(expect.any(String));
    } finally {
      await t.close();
    }
  });
});

describe('request ids', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('echoes a plain x-request-id and replaces anything else with a fresh one', async () => {
    const kept = await fetch(`${t.url}/healthz`, { headers: { 'x-request-id': 'trace-42.a_b' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-42.a_b');
    for (const bad of ['a'.repeat(65), 'has space', 'quote"s', '']) {
      const res = await fetch(`${t.url}/healthz`, { headers: { 'x-request-id': bad } });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    const none = await fetch(`${t.url}/healthz`);
    expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
