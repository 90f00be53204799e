import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClientId, generateClientSecret } from '../src/oauth/client-secrets.js';
import { startTestApp, type TestApp } from './helpers/test-app.js';

describe('happy path', () => {
  let t: TestApp;
  const by = { actor: 'test' };
  const testId = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
  const clientId = generateClientId();
  const clientSecret = generateClientSecret();

  beforeAll(async () => {
    t = await startTestApp();
    const { store, hasher } = t.runtime;
    await store.credentials.createUser('ada@example.com', by);
    await store.credentials.createCredential({ clientId, email: 'ada@example.com', secretHash: hasher.hash(clientSecret) }, by);
    const ws = await store.directory.createWorkspace({ id: 'a3a7f2d4-0b7e-4a57-8f63-2f0d3c1a9e01', name: 'Lab' }, by);
    await store.directory.addMember(ws.id, 'Ada@Example.com', by);
    await store.directory.createTest({ id: testId, workspaceId: ws.id, title: 'T', productType: 'survey' }, by);
    await store.sessions.importSessions(
      testId,
      [{ sessionId: '0b0c4a3e-1111-4c1a-9a55-2a6f4c0e7d10', audienceId: null, status: 'COMPLETE', startTime: Date.UTC(2024, 10, 21, 12, 23, 52, 614), finishTime: null }],
      by,
    );
  });
  afterAll(() => t.close());

  it('mints a token (form B) and lists a page', async () => {
    const { custom } = t.runtime.servers;
    const tokenRes = await fetch(`${t.url}/oauth2/${custom.id}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'studies:read', client_id: clientId, client_secret: clientSecret }),
    });
    expect(tokenRes.status).toBe(200);
    const token = (await tokenRes.json()) as { access_token: string; scope: string };
    expect(token.scope).toBe('studies:read');
    const res = await fetch(`${t.url}/api/v2/sessionResults?testId=${testId}&rowsPerPage=10&pageNumber=1`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      testId,
      sessions: [{ sessionId: '0b0c4a3e-1111-4c1a-9a55-2a6f4c0e7d10', audienceId: null, status: 'COMPLETE', startTime: '2024-11-21T12:23:52.614Z', finishTime: null }],
      meta: { pagination: { limit: 10, offset: 0, totalCount: 1, rowsPerPage: 10, pageNumber: 1, totalPages: 1 } },
    });
  });
});
