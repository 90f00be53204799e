import { describe, expect, it } from 'vitest';
import { startSeededApp } from '../helpers/test-app.js';
import { FORM_CONTENT_TYPE, toListeningUrl } from '../helpers/token-operations.js';
import { basicAuthorization, serverOf, type TokenForm } from '../helpers/tokens.js';

/** RFC 8414 metadata: exactly what each authorization server supports, and nothing else. */

const { t, client } = await startSeededApp();

const forms: TokenForm[] = ['A', 'B'];

/** The three places a client looks for a server's metadata (Okta / OIDC layout, and RFC 8414 §3.1). */
const metadataPaths = (id: string): string[] => [
  `/oauth2/${id}/.well-known/oauth-authorization-server`,
  `/oauth2/${id}/.well-known/openid-configuration`,
  `/.well-known/oauth-authorization-server/oauth2/${id}`,
];

function expectedMetadata(form: TokenForm): Record<string, unknown> {
  const server = serverOf(t, form);
  const issuer = `http://127.0.0.1:8080/oauth2/${server.id}`;
  const methods = ['client_secret_basic', 'client_secret_post'];
  return {
    issuer,
    authorization_endpoint: `${issuer}/v1/authorize`,
    token_endpoint: `${issuer}/v1/token`,
    jwks_uri: `${issuer}/v1/keys`,
    introspection_endpoint: `${issuer}/v1/introspect`,
    revocation_endpoint: `${issuer}/v1/revoke`,
    grant_types_supported: ['client_credentials', 'authorization_code', 'refresh_token'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    scopes_supported: [form === 'A' ? 'public_api.read' : 'studies:read', 'sessions:read', 'videos:read', 'clips:read', 'webhooks:manage'],
    token_endpoint_auth_methods_supported: [...methods, 'none'],
    introspection_endpoint_auth_methods_supported: methods,
    revocation_endpoint_auth_methods_supported: methods,
    service_documentation: 'http://127.0.0.1:8080/docs',
    registration_endpoint: `${issuer}/v1/register`,
    client_id_metadata_document_supported: true,
  };
}

async function metadataOf(form: TokenForm): Promise<Record<string, string>> {
  const res = await fetch(`${t.url}/oauth2/${serverOf(t, form).id}/.well-known/oauth-authorization-server`);
  return (await res.json()) as Record<string, string>;
}

describe.each(forms)('form %s server', (form) => {
  it.each([0, 1, 2])('metadata path #%i serves exactly the RFC 8414 metadata', async (i) => {
    const res = await fetch(`${t.url}${metadataPaths(serverOf(t, form).id)[i]}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(await res.json()).toEqual(expectedMetadata(form));
  });

  it('the issuer is the prefix of every endpoint and what the tokens carry in iss', async () => {
    const metadata = await metadataOf(form);
    expect(metadata.issuer).toBe(serverOf(t, form).issuer);
    for (const name of ['token_endpoint', 'jwks_uri', 'introspection_endpoint', 'revocation_endpoint']) {
      expect(metadata[name]!.startsWith(`${metadata.issuer}/`)).toBe(true);
    }
  });

  it('jwks_uri serves the public signing keys (and no private part)', async () => {
    const res = await fetch(toListeningUrl(t, (await metadataOf(form)).jwks_uri!));
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys).toEqual([
      { kty: 'RSA', kid: t.runtime.keys.signingKey().kid, alg: 'RS256', use: 'sig', n: expect.any(String), e: 'AQAB' },
    ]);
  });

  it.each(['client_secret_basic', 'client_secret_post'] as const)(
    'token_endpoint grants the advertised grant type and scope with %s',
    async (method) => {
      const metadata = await metadataOf(form);
      const body = new URLSearchParams({ grant_type: metadata.grant_types_supported![0]!, scope: metadata.scopes_supported![0]! });
      const headers: Record<string, string> = { 'content-type': FORM_CONTENT_TYPE };
      if (method === 'client_secret_basic') headers.authorization = basicAuthorization(client.clientId, client.clientSecret);
      else {
        body.set('client_id', client.clientId);
        body.set('client_secret', client.clientSecret);
      }
      const res = await fetch(toListeningUrl(t, metadata.token_endpoint!), { method: 'POST', headers, body });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ token_type: 'Bearer', scope: metadata.scopes_supported![0] });
    },
  );

  it('introspection_endpoint and revocation_endpoint work with both advertised auth methods', async () => {
    const metadata = await metadataOf(form);
    const authorization = basicAuthorization(client.clientId, client.clientSecret);
    const mint = async () => {
      const res = await fetch(toListeningUrl(t, metadata.token_endpoint!), {
        method: 'POST',
        headers: { 'content-type': FORM_CONTENT_TYPE, authorization },
        body: new URLSearchParams({ grant_type: 'client_credentials' }),
      });
      return ((await res.json()) as { access_token: string }).access_token;
    };
    const post = (url: string, token: string, basic: boolean) =>
      fetch(toListeningUrl(t, url), {
        method: 'POST',
        headers: { 'content-type': FORM_CONTENT_TYPE, ...(basic ? { authorization } : {}) },
        body: new URLSearchParams(basic ? { token } : { token, client_id: client.clientId, client_secret: client.clientSecret }),
      });
    for (const basic of [true, false]) {
      const token = await mint();
      const introspected = await post(metadata.introspection_endpoint!, token, basic);
      expect(introspected.status).toBe(200);
      expect(await introspected.json()).toMatchObject({ active: true, iss: metadata.issuer });
      expect((await post(metadata.revocation_endpoint!, token, basic)).status).toBe(200);
      expect(await (await post(metadata.introspection_endpoint!, token, basic)).json()).toEqual({ active: false });
    }
  });
});

describe('discovery of what does not exist', () => {
  it.each(metadataPaths('ausDoesNotExist000000'))('%s is 404', async (path) => {
    const res = await fetch(`${t.url}${path}`);
    expect(res.status).toBe(404);
  });

  it("an unknown server's metadata under /oauth2 answers in the OAuth error shape", async () => {
    const res = await fetch(`${t.url}/oauth2/ausDoesNotExist000000/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'No such authorization server endpoint.' });
  });

  it('no OpenID Connect endpoint is advertised: this is OAuth 2.0, not an identity provider', async () => {
    for (const form of forms) {
      const metadata = await metadataOf(form);
      expect(metadata).not.toHaveProperty('userinfo_endpoint');
      expect(metadata).not.toHaveProperty('id_token_signing_alg_values_supported');
    }
  });
});
