import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { callApi, toListeningUrl } from '../helpers/token-operations.js';
import { authHeaders, decodeJws, serverOf, type TokenForm } from '../helpers/tokens.js';

/**
 * Certified client libraries against the live server: openid-client (discovery, the
 * client-credentials grant with both client authentication methods, introspection,
 * revocation) and oauth4webapi's RFC 9068 validation of our access tokens against our JWKS.
 * Real clock: these libraries check exp and iat against the time they see.
 */

let t: TestApp;
let s: Seeded;

beforeAll(async () => {
  t = await startTestApp();
  s = await seed(t.runtime, { sessions: 1 });
});
afterAll(() => t.close());

/**
 * The server advertises http://127.0.0.1:8080 (PUBLIC_URL) and listens on an ephemeral port:
 * this fetch plays the reverse proxy between the two, so the libraries see the advertised
 * URLs and the issuer exactly as a deployment would publish them.
 */
const throughProxy: client.CustomFetch = (url, options) => fetch(toListeningUrl(t, url), options as RequestInit);

const forms: TokenForm[] = ['A', 'B'];
const clientAuths = [
  { name: 'client_secret_post', auth: () => client.ClientSecretPost(s.clientSecret) },
  { name: 'client_secret_basic', auth: () => client.ClientSecretBasic(s.clientSecret) },
];
const discoveryAlgorithms = [
  { name: 'OpenID Connect Discovery (issuer + /.well-known/openid-configuration)', algorithm: 'oidc' as const },
  { name: 'RFC 8414 (/.well-known/oauth-authorization-server + issuer path)', algorithm: 'oauth2' as const },
];

async function discover(form: TokenForm, auth: client.ClientAuth, algorithm: 'oidc' | 'oauth2' = 'oidc'): Promise<client.Configuration> {
  return client.discovery(new URL(serverOf(t, form).issuer), s.clientId, undefined, auth, {
    execute: [client.allowInsecureRequests],
    [client.customFetch]: throughProxy,
    algorithm,
  });
}

describe('openid-client', () => {
  describe.each(forms)('form %s server', (form) => {
    it.each(discoveryAlgorithms)('discovers it by $name', async ({ algorithm }) => {
      const config = await discover(form, client.ClientSecretPost(s.clientSecret), algorithm);
      const metadata = config.serverMetadata();
      expect(metadata.issuer).toBe(serverOf(t, form).issuer);
      expect(metadata.token_endpoint).toBe(`${serverOf(t, form).issuer}/v1/token`);
      expect(metadata.grant_types_supported).toEqual(['client_credentials', 'authorization_code', 'refresh_token']);
    });

    it.each(clientAuths)('obtains, introspects and revokes a token with $name', async ({ auth }) => {
      const server = serverOf(t, form);
      const config = await discover(form, auth());

      const tokens = await client.clientCredentialsGrant(config, { scope: server.scope });
      expect(tokens.token_type).toBe('bearer'); // openid-client lower-cases it
      expect(tokens.scope).toBe(server.scope);
      // Counted from the response, on the real clock: a second may tick between signing and answering.
      expect(tokens.expires_in).toBeGreaterThanOrEqual(3599);
      expect(tokens.expires_in).toBeLessThanOrEqual(3600);
      expect((await callApi(t, authHeaders(tokens.access_token))).status).toBe(200);

      const introspection = await client.tokenIntrospection(config, tokens.access_token);
      expect(introspection).toEqual({
        active: true,
        scope: server.scope,
        client_id: s.clientId,
        token_type: 'Bearer',
        exp: expect.any(Number),
        iat: expect.any(Number),
        sub: s.clientId,
        aud: server.audience,
        iss: server.issuer,
        jti: decodeJws(tokens.access_token).payload.jti,
        username: s.email,
      });

      await client.tokenRevocation(config, tokens.access_token);
      expect(await client.tokenIntrospection(config, tokens.access_token)).toEqual({ active: false });
      expect((await callApi(t, authHeaders(tokens.access_token))).status).toBe(401);
    });

    it('omitting the scope is granted the server scope', async () => {
      const config = await discover(form, client.ClientSecretBasic(s.clientSecret));
      expect((await client.clientCredentialsGrant(config)).scope).toBe(serverOf(t, form).scope);
    });

    it("reports a wrong secret (client_secret_post) as the server's invalid_client error", async () => {
      const config = await discover(form, client.ClientSecretPost('wrong'));
      await expect(client.clientCredentialsGrant(config)).rejects.toMatchObject({ error: 'invalid_client', status: 401 });
    });

    it('reports a wrong secret (client_secret_basic) as the Basic challenge RFC 6749 §5.2 asks for', async () => {
      const config = await discover(form, client.ClientSecretBasic('wrong'));
      const error = await client.clientCredentialsGrant(config).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toMatchObject({
        code: 'OAUTH_WWW_AUTHENTICATE_CHALLENGE',
        status: 401,
        cause: [{ scheme: 'basic', parameters: { realm: 'results-api' } }],
      });
      expect(await (error as { response: Response }).response.json()).toMatchObject({ error: 'invalid_client' });
    });

    it("reports a scope the server does not offer as the server's invalid_scope error", async () => {
      const config = await discover(form, client.ClientSecretPost(s.clientSecret));
      await expect(client.clientCredentialsGrant(config, { scope: 'admin' })).rejects.toMatchObject({ error: 'invalid_scope', status: 400 });
    });
  });
});

describe("oauth4webapi's RFC 9068 validateJwtAccessToken", () => {
  const options = { [oauth.customFetch]: throughProxy, [oauth.allowInsecureRequests]: true };

  async function authorizationServer(form: TokenForm): Promise<oauth.AuthorizationServer> {
    const issuer = new URL(serverOf(t, form).issuer);
    const res = await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' });
    return oauth.processDiscoveryResponse(issuer, res);
  }

  async function tokenFrom(form: TokenForm): Promise<string> {
    const config = await discover(form, client.ClientSecretBasic(s.clientSecret));
    return (await client.clientCredentialsGrant(config)).access_token;
  }

  /** A resource request as the API receives it; oauth4webapi reads only `Authorization: Bearer`. */
  const apiRequest = (token: string) =>
    new Request(`${t.url}/api/v2/sessionResults?testId=${s.testId}`, { headers: { authorization: `Bearer ${token}` } });

  it.each(forms)('accepts a form %s token against our JWKS, with every RFC 9068 claim', async (form) => {
    const server = serverOf(t, form);
    const as = await authorizationServer(form);
    const token = await tokenFrom(form);
    const claims = await oauth.validateJwtAccessToken(as, apiRequest(token), server.audience, options);
    expect(claims).toMatchObject({ iss: server.issuer, aud: server.audience, sub: s.clientId, client_id: s.clientId, scope: server.scope });
    // The same token works on our API with both header forms.
    expect((await callApi(t, authHeaders(token, 'bearer'))).status).toBe(200);
    expect((await callApi(t, authHeaders(token, 'token'))).status).toBe(200);
  });

  it.each(forms)('rejects a form %s token when it expects the other server (issuer and audience are checked)', async (form) => {
    const other = form === 'A' ? 'B' : 'A';
    const token = await tokenFrom(form);
    await expect(
      oauth.validateJwtAccessToken(await authorizationServer(other), apiRequest(token), serverOf(t, other).audience, options),
    ).rejects.toThrow();
    await expect(
      oauth.validateJwtAccessToken(await authorizationServer(form), apiRequest(token), serverOf(t, other).audience, options),
    ).rejects.toThrow();
  });
});
