import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultsApiError, ResultsClient } from '@results-api/client';
import { legacyNumericId } from '../../src/legacy/numeric-id.js';
import { rendered, seed, seedTest, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientFor, recordingFetch } from './helpers.js';

describe('ResultsClient against the real server, both forms', () => {
  let t: TestApp;
  let s: Seeded;

  beforeAll(async () => {
    t = await startTestApp();
    s = await seed(t.runtime, { sessions: 30 });
  });
  afterAll(() => t.close());

  it('form A: default server, public_api.read, token header, limit/offset on /v2/sessionResults', async () => {
    const rec = recordingFetch();
    const client = clientFor(t, s, 'A', { fetch: rec.fetch });

    const page = await client.listSessionResults({ testId: s.testId, limit: 10, offset: 5 });

    expect(page).toEqual({
      testId: s.testId,
      sessions: s.sessions.slice(5, 15).map(rendered),
      meta: { pagination: { limit: 10, offset: 5, totalCount: 30 } },
    });
    const [token, api] = rec.sent;
    expect(token!.method).toBe('POST');
    expect(token!.url.href).toBe(`${t.url}/oauth2/default/v1/token`);
    expect(token!.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(token!.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'public_api.read',
      client_id: s.clientId,
      client_secret: s.clientSecret,
    });
    expect(api!.url.pathname).toBe('/v2/sessionResults');
    expect(Object.fromEntries(api!.url.searchParams)).toEqual({ testId: s.testId, limit: '10', offset: '5' });
    expect(api!.headers.get('token')).toMatch(/^ey/);
    expect(api!.headers.get('authorization')).toBeNull();
    expect(rec.sent).toHaveLength(2);
  });

  it('form B: custom server, studies:read, Bearer, rowsPerPage/pageNumber on /api/v2/sessionResults', async () => {
    const rec = recordingFetch();
    const client = clientFor(t, s, 'B', { fetch: rec.fetch });

    const page = await client.listSessionResults({ testId: s.testId, rowsPerPage: 10, pageNumber: 3 });

    expect(page).toEqual({
      testId: s.testId,
      sessions: s.sessions.slice(20, 30).map(rendered),
      meta: { pagination: { limit: 10, offset: 20, totalCount: 30, rowsPerPage: 10, pageNumber: 3, totalPages: 3 } },
    });
    const [token, api] = rec.sent;
    expect(token!.url.href).toBe(`${t.url}/oauth2/${t.runtime.servers.custom.id}/v1/token`);
    expect(new URLSearchParams(token!.body).get('scope')).toBe('studies:read');
    expect(api!.url.pathname).toBe('/api/v2/sessionResults');
    expect(Object.fromEntries(api!.url.searchParams)).toEqual({ testId: s.testId, rowsPerPage: '10', pageNumber: '3' });
    expect(api!.headers.get('authorization')).toMatch(/^Bearer ey/);
    expect(api!.headers.get('token')).toBeNull();
  });

  it('form B is the default when an authorization server id is given, A otherwise', () => {
    const common = { authUrl: t.url, baseUrl: t.url, clientId: s.clientId, clientSecret: s.clientSecret };
    expect(new ResultsClient({ ...common, authorizationServerId: t.runtime.servers.custom.id }).form).toBe('B');
    expect(new ResultsClient(common).form).toBe('A');
  });

  it.each(['A', 'B'] as const)('form %s: getAccessToken returns the token it then reuses', async (form) => {
    const rec = recordingFetch();
    const client = clientFor(t, s, form, { fetch: rec.fetch });
    const token = await client.getAccessToken();
    await client.listSessionResults({ testId: s.testId });
    await client.listSessionResults({ testId: s.testId });
    expect(rec.tokenRequests()).toHaveLength(1);
    const header = form === 'A' ? rec.apiRequests()[0]!.headers.get('token') : rec.apiRequests()[0]!.headers.get('authorization');
    expect(header).toBe(form === 'A' ? token : `Bearer ${token}`);
    const info = await client.getAccessTokenInfo();
    expect(info).toMatchObject({ accessToken: token, tokenType: 'Bearer', scope: form === 'A' ? 'public_api.read' : 'studies:read' });
  });

  it.each(['A', 'B'] as const)('form %s: workspaces() and studies() list what the caller may see (Legacy v1)', async (form) => {
    const own = await seed(t.runtime, { sessions: 4 });
    const other = await seedTest(t.runtime, own.workspaceId, [], { title: 'Second', productType: 'LIVE_CONVERSATION' });
    const client = clientFor(t, own, form);

    // The Legacy v1 workspace id is a number of its own, as the real service's is; the uuid finds it.
    expect(await client.workspaces()).toEqual([{ id: String(legacyNumericId(own.workspaceId)), name: 'Lab', uuid: own.workspaceId }]);
    const studies = await client.studies(own.workspaceId);
    expect(studies.map((x) => x.uuid).sort()).toEqual([own.testId, other].sort());
    expect(studies.find((x) => x.uuid === own.testId)).toEqual({
      uuid: own.testId,
      title: 'Checkout flow',
      type: 'STUDYV2',
      productType: 'SURVEY',
      orderedAt: expect.stringMatching(/Z$/),
      cursor: expect.any(String),
    });
    const missing = await client.studies(crypto.randomUUID()).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, legacy: { errorCode: 'NOT_FOUND', errorMessage: 'Workspace not found' } });
  });

  it('an unknown test is a ResultsApiError carrying the problem details', async () => {
    const client = clientFor(t, s, 'B');
    const missing = '00000000-0000-4000-8000-000000000000';
    const error = await client.listSessionResults({ testId: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultsApiError);
    expect(error).toMatchObject({
      status: 404,
      method: 'GET',
      url: `${t.url}/api/v2/sessionResults`,
      problem: { type: 'urn:results-api:problem:not-found', title: 'Not found', status: 404, detail: 'Test not found' },
      oauth: undefined,
      requestId: expect.any(String),
      message: `GET ${t.url}/api/v2/sessionResults answered 404 Not found: Test not found`,
    });
  });

  it('a bad parameter is thrown at once, not retried', async () => {
    const rec = recordingFetch();
    const client = clientFor(t, s, 'A', { fetch: rec.fetch });
    const error = await client.listSessionResults({ testId: s.testId, limit: 501 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, problem: { type: 'urn:results-api:problem:invalid-parameter' } });
    expect(rec.apiRequests()).toHaveLength(1);
  });

  it('a wrong client secret is a ResultsApiError with the OAuth error, and the token request is not retried', async () => {
    const rec = recordingFetch();
    const client = clientFor(t, { clientId: s.clientId, clientSecret: 'wrong' }, 'B', { fetch: rec.fetch });
    const error = await client.listSessionResults({ testId: s.testId }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultsApiError);
    expect(error).toMatchObject({
      status: 401,
      method: 'POST',
      problem: undefined,
      oauth: {
        error: 'invalid_client',
        error_description: 'Client authentication failed. Either the client or the client credentials are invalid.',
      },
    });
    expect(rec.sent).toHaveLength(1);
    expect((error as Error).message).not.toContain('wrong');
    // The server never says which part was wrong; the message names what to check.
    expect((error as Error).message).toMatch(/invalid_client: Client authentication failed\..* Check the client id and secret \(a revoked credential, or a secret rotated out.*\) and that authUrl names the server/);
  });

  it('refuses options it cannot work with, naming them', () => {
    const common = { authUrl: t.url, baseUrl: t.url, clientId: 'id', clientSecret: 'secret' };
    expect(() => new ResultsClient({ ...common, form: 'B' })).toThrow(
      'ResultsClient: form B needs authorizationServerId (the custom authorization server id)',
    );
    expect(() => new ResultsClient({ ...common, baseUrl: 'api.example.com' })).toThrow(
      'ResultsClient: baseUrl must be an absolute http(s) URL (got "api.example.com")',
    );
    expect(() => new ResultsClient({ ...common, clientSecret: '' })).toThrow('ResultsClient: clientSecret is required');
    expect(() => new ResultsClient({ ...common, form: 'C' as 'A' })).toThrow('ResultsClient: form must be "A" or "B" (got "C")');
  });

  it('accepts base URLs with a trailing slash or a path prefix', async () => {
    const rec = recordingFetch();
    const client = clientFor(t, s, 'B', { fetch: rec.fetch, authUrl: `${t.url}/`, baseUrl: `${t.url}/` });
    await client.listSessionResults({ testId: s.testId });
    expect(rec.sent.map((r) => r.url.pathname)).toEqual([`/oauth2/${t.runtime.servers.custom.id}/v1/token`, '/api/v2/sessionResults']);
  });
});
