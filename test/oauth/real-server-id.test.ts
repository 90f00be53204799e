import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_AUTH_SERVER_ID } from '../../src/oauth/authorization-servers.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { callApi, introspection, toListeningUrl } from '../helpers/token-operations.js';
import { authHeaders, decodeJws, mintToken } from '../helpers/tokens.js';

/**
 * Issue 31 item 4: the real service's form B token URL, `/oauth2/aus1p3vtd8vtm4Bxv0h8/v1/token`,
 * works here with only the host changed, whatever AUTH_SERVER_ID says; each id is its own issuer.
 */

const CONFIGURED_ID = 'ausConfigured0000001';
const REAL_ISSUER = `http://127.0.0.1:8080/oauth2/${REAL_AUTH_SERVER_ID}`;

let t: TestApp;
let s: Seeded;

beforeAll(async () => {
  t = await startTestApp({ env: { AUTH_SERVER_ID: CONFIGURED_ID, AUTH_SERVER_AUDIENCE: 'api://configured-audience' } });
  s = await seed(t.runtime, { sessions: 1 });
});
afterAll(() => t.close());

/** A token request exactly as the real service's documentation writes it, our host in front. */
async function realServiceTokenRequest(clientSecret = s.clientSecret): Promise<Response> {
  return fetch(`${t.url}/oauth2/${REAL_AUTH_SERVER_ID}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'studies:read', client_id: s.clientId, client_secret: clientSecret }),
  });
}

describe("the real service's authorization server id, beside a configured one", () => {
  it('issues a token at the real token URL, naming the real id as its issuer, with the form B audience and scope', async () => {
    const res = await realServiceTokenRequest();
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; scope: string; token_type: string };
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'studies:read' });
    expect(decodeJws(body.access_token).payload).toMatchObject({
      iss: REAL_ISSUER,
      aud: 'api://configured-audience',
      scope: 'studies:read',
      client_id: s.clientId,
    });
    expect((await callApi(t, authHeaders(body.access_token))).status).toBe(200);
    expect((await callApi(t, authHeaders(body.access_token), `/api/v2/sessionResults?testId=${s.testId}`)).status).toBe(200);
  });

  it('refuses a wrong secret there as everywhere (401 invalid_client)', async () => {
    const res = await realServiceTokenRequest('wrong');
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('keeps the configured id working, as its own issuer', async () => {
    const token = await mintToken(t, s, 'B');
    expect(decodeJws(token).payload.iss).toBe(`http://127.0.0.1:8080/oauth2/${CONFIGURED_ID}`);
    expect(t.runtime.servers.all.map((server) => server.id)).toEqual(['default', CONFIGURED_ID, REAL_AUTH_SERVER_ID]);
  });

  it("is discovered by openid-client from the real id's issuer, with endpoints under it", async () => {
    const config = await client.discovery(new URL(REAL_ISSUER), s.clientId, undefined, client.ClientSecretBasic(s.clientSecret), {
      execute: [client.allowInsecureRequests],
      [client.customFetch]: (url, options) => fetch(toListeningUrl(t, url), options as RequestInit),
    });
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(REAL_ISSUER);
    expect(metadata.token_endpoint).toBe(`${REAL_ISSUER}/v1/token`);
    // The server's scope first, then the family scopes an app acting for a user may be narrowed to (issue 34), then managing webhooks (issue 35).
    expect(metadata.scopes_supported).toEqual(['studies:read', 'sessions:read', 'videos:read', 'clips:read', 'webhooks:manage']);
    const tokens = await client.clientCredentialsGrant(config);
    expect(decodeJws(tokens.access_token).payload.iss).toBe(REAL_ISSUER);
  });

  it("introspects only its own tokens: a configured server's token is inactive at the real id, and back", async () => {
    const realToken = ((await (await realServiceTokenRequest()).json()) as { access_token: string }).access_token;
    const configuredToken = await mintToken(t, s, 'B');
    expect(await introspection(t, s, realToken, { serverId: REAL_AUTH_SERVER_ID })).toMatchObject({ active: true, iss: REAL_ISSUER });
    expect(await introspection(t, s, configuredToken, { serverId: REAL_AUTH_SERVER_ID })).toEqual({ active: false });
    expect(await introspection(t, s, realToken, { serverId: CONFIGURED_ID })).toEqual({ active: false });
  });
});

describe('AUTH_SERVER_ID set to the real id', () => {
  it('serves one form B server at it (no second server, no duplicate routes)', async () => {
    const app = await startTestApp({ env: { AUTH_SERVER_ID: REAL_AUTH_SERVER_ID } });
    try {
      expect(app.runtime.servers.all.map((server) => [server.id, server.kind])).toEqual([
        ['default', 'default'],
        [REAL_AUTH_SERVER_ID, 'custom'],
      ]);
      const res = await fetch(`${app.url}/oauth2/${REAL_AUTH_SERVER_ID}/.well-known/oauth-authorization-server`);
      expect(((await res.json()) as { issuer: string }).issuer).toBe(REAL_ISSUER);
    } finally {
      await app.close();
    }
  });
});
