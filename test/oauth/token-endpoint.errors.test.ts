import { describe, expect, it } from 'vitest';
import { generateClientId, generateClientSecret } from '../../src/oauth/client-secrets.js';
import { seedClient, storeActor } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { basicAuthorization, tokenUrl, type TokenForm } from '../helpers/tokens.js';

const FORM = 'application/x-www-form-urlencoded';
const CLIENT_AUTH_FAILED = {
  error: 'invalid_client',
  error_description: 'Client authentication failed. Either the client or the client credentials are invalid.',
};

// Many failed requests from one address on purpose: keep the token throttle out of the way.
const { t, client } = await startSeededApp({ env: { RATE_LIMIT_TOKEN_ADDRESS: '100000', RATE_LIMIT_TOKEN_CLIENT: '100000' } });

/** A raw POST to a token endpoint, with exactly the body and headers given. */
function post(body: string, headers: Record<string, string> = { 'content-type': FORM }, form: TokenForm = 'B'): Promise<Response> {
  return fetch(tokenUrl(t, form), { method: 'POST', headers, body });
}

/** The credentials as form keys, valid unless overridden. */
function formBody(fields: Record<string, string | undefined> = {}): string {
  const all: Record<string, string | undefined> = {
    grant_type: 'client_credentials',
    scope: 'studies:read',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    ...fields,
  };
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(all)) if (v !== undefined) params.append(k, v);
  return params.toString();
}

/** RFC 6749 §5.2 error response: exact status, exact body shape, never cached. */
async function expectOAuthError(res: Response, status: number, error: string, description?: string): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('pragma')).toBe('no-cache');
  const text = await res.text();
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  expect(body.error).toBe(error);
  expect(body.error_description).toEqual(description ?? expect.stringMatching(/\S/));
  return text;
}

describe('request body', () => {
  it.each([
    ['application/json', JSON.stringify({ grant_type: 'client_credentials', scope: 'studies:read' })],
    ['text/plain', 'grant_type=client_credentials&scope=studies:read'],
    [
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--x--\r\n',
    ],
  ])('%s is refused with invalid_request', async (contentType, body) => {
    const res = await post(body, { 'content-type': contentType });
    await expectOAuthError(res, 415, 'invalid_request', `Content-Type ${contentType} is not accepted here.`);
  });

  it('a JSON body is refused even when it carries valid credentials', async () => {
    const body = JSON.stringify({
      grant_type: 'client_credentials',
      scope: 'studies:read',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    await expectOAuthError(await post(body, { 'content-type': 'application/json' }), 415, 'invalid_request');
    await expectOAuthError(
      await post(body, { 'content-type': 'application/json', authorization: basicAuthorization(client.clientId, client.clientSecret) }),
      415,
      'invalid_request',
    );
  });

  it('a body without a content type is refused with invalid_request', async () => {
    const res = await fetch(tokenUrl(t, 'B'), { method: 'POST', body: new Blob([formBody()]) });
    await expectOAuthError(res, 415, 'invalid_request', 'Content-Type (none) is not accepted here.');
  });

  it('a form content type with a charset parameter is accepted', async () => {
    const res = await post(formBody(), { 'content-type': `${FORM}; charset=UTF-8` });
    expect(res.status).toBe(200);
  });

  it('an oversized form body is 413 in the OAuth error shape', async () => {
    const res = await post(`${formBody()}&padding=${'x'.repeat(20_000)}`);
    await expectOAuthError(res, 413, 'invalid_request', 'The request body is too large.');
  });

  it.each(['grant_type', 'scope', 'client_id', 'client_secret'])('%s given twice is invalid_request', async (name) => {
    const body = `${formBody()}&${name}=${encodeURIComponent(new URLSearchParams(formBody()).get(name)!)}`;
    await expectOAuthError(await post(body), 400, 'invalid_request', `${name} must be given only once`);
  });

  it('a repeated parameter is refused even with an empty second value', async () => {
    await expectOAuthError(await post(`${formBody()}&scope=`), 400, 'invalid_request', 'scope must be given only once');
  });
});

describe('client authentication', () => {
  const basic = (id = client.clientId, secret = client.clientSecret) => ({
    'content-type': FORM,
    authorization: basicAuthorization(id, secret),
  });

  it('Basic and client_secret in the form at once is invalid_request', async () => {
    const res = await post(formBody({ client_id: undefined }), basic());
    await expectOAuthError(res, 400, 'invalid_request', 'Use one client authentication method: HTTP Basic or form keys, not both.');
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('Basic and both form keys at once is invalid_request', async () => {
    await expectOAuthError(await post(formBody(), basic()), 400, 'invalid_request');
  });

  it('Basic with a different client_id in the form is invalid_request', async () => {
    const other = await seedClient(t.runtime);
    await expectOAuthError(await post(formBody({ client_id: other.clientId, client_secret: undefined }), basic()), 400, 'invalid_request');
  });

  describe('every failure is the same 401 invalid_client', () => {
    const failures: { name: string; credentials: () => Promise<{ id: string; secret: string }> }[] = [
      { name: 'unknown client', credentials: async () => ({ id: generateClientId(), secret: generateClientSecret() }) },
      { name: 'wrong secret', credentials: async () => ({ id: client.clientId, secret: generateClientSecret() }) },
      { name: 'empty secret', credentials: async () => ({ id: client.clientId, secret: '' }) },
      {
        name: 'another client’s secret',
        credentials: async () => ({ id: client.clientId, secret: (await seedClient(t.runtime)).clientSecret }),
      },
      {
        name: 'revoked credential',
        credentials: async () => {
          const revoked = await seedClient(t.runtime);
          await t.runtime.store.credentials.revokeCredential(revoked.clientId, storeActor);
          return { id: revoked.clientId, secret: revoked.clientSecret };
        },
      },
      {
        name: 'disabled user',
        credentials: async () => {
          const disabled = await seedClient(t.runtime);
          await t.runtime.store.credentials.setUserStatus(disabled.email, 'disabled', storeActor);
          return { id: disabled.clientId, secret: disabled.clientSecret };
        },
      },
    ];
    const bodies = new Set<string>();

    it.each(failures)('$name with client_secret_post: 401, no WWW-Authenticate', async ({ credentials }) => {
      const { id, secret } = await credentials();
      const res = await post(formBody({ client_id: id, client_secret: secret }));
      bodies.add(await expectOAuthError(res, 401, CLIENT_AUTH_FAILED.error, CLIENT_AUTH_FAILED.error_description));
      expect(res.headers.get('www-authenticate')).toBeNull();
    });

    it.each(failures)('$name with client_secret_basic: 401 with WWW-Authenticate: Basic', async ({ credentials }) => {
      const { id, secret } = await credentials();
      const res = await post(formBody({ client_id: undefined, client_secret: undefined }), basic(id, secret));
      bodies.add(await expectOAuthError(res, 401, CLIENT_AUTH_FAILED.error, CLIENT_AUTH_FAILED.error_description));
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="results-api"');
    });

    it.each(['A', 'B'] as const)('on form %s too', async (form) => {
      const res = await post(formBody({ client_secret: generateClientSecret(), scope: undefined }), { 'content-type': FORM }, form);
      bodies.add(await expectOAuthError(res, 401, CLIENT_AUTH_FAILED.error, CLIENT_AUTH_FAILED.error_description));
    });

    it('and all those bodies are byte-for-byte identical', () => {
      expect(bodies.size).toBe(1);
      expect(JSON.parse([...bodies][0]!)).toEqual(CLIENT_AUTH_FAILED);
    });
  });

  it('no client authentication at all is 401 invalid_client without a challenge', async () => {
    const res = await post(formBody({ client_id: undefined, client_secret: undefined }));
    await expectOAuthError(res, 401, CLIENT_AUTH_FAILED.error, CLIENT_AUTH_FAILED.error_description);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('client_id without client_secret is 401 invalid_client', async () => {
    const res = await post(formBody({ client_secret: undefined }));
    await expectOAuthError(res, 401, CLIENT_AUTH_FAILED.error, CLIENT_AUTH_FAILED.error_description);
  });

  it.each([
    ['not base64', 'Basic !!!'],
    ['no colon', `Basic ${Buffer.from('0oaNoColonInHere12345').toString('base64')}`],
    ['empty credentials', 'Basic '],
    ['another scheme', 'Bearer abc'],
    ['bad percent-encoding', `Basic ${Buffer.from('%E0%A4%A:secret').toString('base64')}`],
  ])('a malformed Basic header (%s) is 401 invalid_client with WWW-Authenticate: Basic', async (_name, authorization) => {
    const res = await post(formBody({ client_id: undefined, client_secret: undefined }), { 'content-type': FORM, authorization });
    await expectOAuthError(res, 401, CLIENT_AUTH_FAILED.error, CLIENT_AUTH_FAILED.error_description);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="results-api"');
  });
});

describe('grant type', () => {
  it('missing grant_type is invalid_request', async () => {
    const res = await post(formBody({ grant_type: undefined }));
    await expectOAuthError(res, 400, 'invalid_request', 'grant_type is required and must be a string');
  });

  it.each(['password', 'implicit', 'urn:ietf:params:oauth:grant-type:jwt-bearer', 'CLIENT_CREDENTIALS', 'AUTHORIZATION_CODE', ''])(
    'grant_type "%s" is unsupported_grant_type',
    async (grantType) => {
      await expectOAuthError(
        await post(formBody({ grant_type: grantType })),
        400,
        'unsupported_grant_type',
        `The grant type '${grantType}' is not supported; use client_credentials, authorization_code or refresh_token.`,
      );
    },
  );
});

describe('scope', () => {
  it.each([
    { form: 'A' as const, scope: 'studies:read', offered: 'public_api.read' },
    { form: 'B' as const, scope: 'public_api.read', offered: 'studies:read' },
    { form: 'A' as const, scope: 'admin', offered: 'public_api.read' },
    { form: 'B' as const, scope: 'studies:write', offered: 'studies:read' },
    { form: 'B' as const, scope: 'studies:read public_api.read', offered: 'studies:read' },
    { form: 'B' as const, scope: 'openid', offered: 'studies:read' },
  ])('form $form: scope "$scope" is invalid_scope', async ({ form, scope, offered }) => {
    await expectOAuthError(
      await post(formBody({ scope }), { 'content-type': FORM }, form),
      400,
      'invalid_scope',
      `The requested scope '${scope}' is not offered by this server; it offers '${offered} webhooks:manage'.`,
    );
  });
});

describe('endpoints', () => {
  it('an unknown authorization server id is 404 in the OAuth error shape', async () => {
    const res = await fetch(`${t.url}/oauth2/ausDoesNotExist000000/v1/token`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: formBody(),
    });
    await expectOAuthError(res, 404, 'invalid_request', 'No such authorization server endpoint.');
  });
});

describe('never a 5xx', () => {
  const form = { 'content-type': FORM };
  const weird: [string, () => string, Record<string, string>][] = [
    ['empty body', () => '', form],
    ['only separators', () => '&&=&=', form],
    ['bad percent-encoding', () => 'grant_type=%E0%A4%A&client_id=%ZZ&client_secret=%', form],
    ['NUL bytes', () => 'grant_type=client_credentials&client_id=%00%00&client_secret=%00', form],
    ['a very long client_id', () => formBody({ client_id: 'x'.repeat(10_000) }), form],
    ['non-ASCII values', () => formBody({ client_id: '\u{1F642}', client_secret: '\u00e9', scope: '\u00df' }), form],
    ['keys without values', () => 'grant_type&client_id&client_secret', form],
    ['prototype keys', () => '__proto__=x&constructor=y&grant_type=client_credentials', form],
    ['malformed JSON', () => '{"grant_type":', { 'content-type': 'application/json' }],
    ['an unknown content type', () => 'x', { 'content-type': 'application/x-made-up' }],
    [
      'a long Basic header',
      () => formBody({ client_id: undefined, client_secret: undefined }),
      { ...form, authorization: `Basic ${'QUFB'.repeat(1000)}` },
    ],
  ];

  it.each(weird)('%s answers 4xx in the OAuth shape', async (_name, body, headers) => {
    const res = await post(body(), headers);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const json = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(['error', 'error_description']);
  });
});
