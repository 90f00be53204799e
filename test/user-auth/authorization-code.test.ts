import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApp } from '../../src/operations/apps.js';
import { tokenHash } from '../../src/sign-in/secret-tokens.js';
import type { AuthorizationServer } from '../../src/oauth/authorization-servers.js';
import { approve, hiddenFields } from '../helpers/authorize-flow.js';
import { FormBrowser } from '../helpers/form-browser.js';
import { freePort } from '../helpers/net.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { seedUserWithPassword, signIn } from '../helpers/users.js';

const by = { actor: 'test' };
const REDIRECT = 'http://127.0.0.1/callback';
let t: TestApp;
let s: Seeded;
let confidential: { clientId: string; clientSecret: string };
let publicApp: { clientId: string };
let browser: FormBrowser;
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  const port = await freePort();
  // Advertised where it listens, so the clients see the issuer they talk to.
  t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
  s = await seed(t.runtime, { sessions: 2 });
  await seedUserWithPassword(t.runtime, s.email);
  const scopes = ['public_api.read', 'studies:read', 'sessions:read', 'clips:read'];
  const registered = await registerApp(t.runtime, { name: 'Insights Hub', redirectUris: [REDIRECT], scopes, clientType: 'confidential' }, by);
  confidential = { clientId: registered.app.clientId, clientSecret: registered.clientSecret! };
  publicApp = { clientId: (await registerApp(t.runtime, { name: 'Desk CLI', redirectUris: [REDIRECT], scopes, clientType: 'public' }, by)).app.clientId };
  browser = new FormBrowser(t.url);
  expect((await signIn(browser, s.email)).status).toBe(303);
});
afterAll(() => t.close());

const servers = (): AuthorizationServer[] => [...t.runtime.servers.all];
const api = (token: string, path = '/usertesting/api/v1/workspaces') => fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

async function discover(server: AuthorizationServer): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(server.issuer);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
}

interface Flow {
  as: oauth.AuthorizationServer;
  verifier: string;
  state: string;
  url: URL;
}

async function startFlow(server: AuthorizationServer, clientId: string, params: Record<string, string> = {}): Promise<Flow> {
  const as = await discover(server);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:51234/callback',
    response_type: 'code',
    scope: server.scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...params,
  }).toString();
  return { as, verifier, state, url };
}

/** The whole flow with oauth4webapi as the partner app; the FormBrowser is the user. */
async function obtainTokens(server: AuthorizationServer, app: { clientId: string; clientSecret?: string } = confidential, params: Record<string, string> = {}) {
  const flow = await startFlow(server, app.clientId, params);
  const { answer } = await approve(browser, flow.url.href);
  expect(answer.status).toBe(303);
  const client: oauth.Client = { client_id: app.clientId };
  const auth = app.clientSecret ? oauth.ClientSecretBasic(app.clientSecret) : oauth.None();
  const callback = oauth.validateAuthResponse(flow.as, client, new URL(answer.location!), flow.state);
  const response = await oauth.authorizationCodeGrantRequest(flow.as, client, auth, callback, 'http://127.0.0.1:51234/callback', flow.verifier, insecure);
  const tokens = await oauth.processAuthorizationCodeResponse(flow.as, client, response);
  return { flow, tokens, client, auth, code: new URL(answer.location!).searchParams.get('code')! };
}

describe('a partner app (oauth4webapi) gets a user\'s tokens through the browser', () => {
  it.each([0, 1])('on server %i: metadata advertises it all; code with PKCE; the token reads as the user; refresh rotates', async (i) => {
    const server = servers()[i]!;
    const as = await discover(server);
    expect(as).toMatchObject({
      authorization_endpoint: `${server.issuer}/v1/authorize`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    const { tokens, client, auth } = await obtainTokens(server);
    expect(tokens.scope).toBe(server.scope);
    expect(tokens.refresh_token).toBeTruthy();
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    const user = await t.runtime.store.credentials.findUserByEmail(s.email);
    expect(claims).toMatchObject({ sub: user!.id, client_id: confidential.clientId, iss: server.issuer });
    const workspaces = await api(tokens.access_token);
    expect(workspaces.status).toBe(200);
    expect(JSON.stringify(await workspaces.json())).toContain(s.workspaceId);

    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await api(refreshed.access_token)).status).toBe(200);
  });

  it('a public app proves itself with PKCE alone (token_endpoint_auth_method none)', async () => {
    const { tokens } = await obtainTokens(servers()[1]!, publicApp);
    expect((await api(tokens.access_token)).status).toBe(200);
  });
});

describe('attacks on the authorization endpoint', () => {
  const server = () => servers()[1]!;

  it('a request without PKCE, or with plain, is refused at the redirect URI with state and iss', async () => {
    for (const params of [{ code_challenge: '', code_challenge_method: '' }, { code_challenge_method: 'plain' }]) {
      const flow = await startFlow(server(), confidential.clientId);
      for (const [k, v] of Object.entries(params)) {
        if (v === '') flow.url.searchParams.delete(k);
        else flow.url.searchParams.set(k, v);
      }
      const answer = await browser.get(`${flow.url.pathname}${flow.url.search}`);
      expect(answer.status).toBe(302);
      const back = new URL(answer.location!);
      expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:51234/callback');
      expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'invalid_request', state: flow.state, iss: server().issuer });
    }
  });

  it.each([
    ['a suffix', 'http://127.0.0.1:51234/callback/evil'],
    ['a subdomain', 'https://evil.127.0.0.1/callback'],
    ['another host', 'https://evil.example/callback'],
    ['a query added', 'http://127.0.0.1:51234/callback?next=https://evil.example'],
  ])('a redirect URI with %s is refused on our own page, never redirected', async (_what, redirectUri) => {
    const flow = await startFlow(server(), confidential.clientId, { redirect_uri: redirectUri, response_type: 'token' });
    const answer = await browser.get(`${flow.url.pathname}${flow.url.search}`);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
    expect(answer.body).toContain('not one the app registered');
  });

  it('an unknown client is refused on our page, even with an error to report (no open redirect through the error path)', async () => {
    const flow = await startFlow(server(), '0oaUNKNOWNUNKNOWN0000', { redirect_uri: 'https://evil.example/', response_type: 'bogus' });
    const answer = await browser.get(`${flow.url.pathname}${flow.url.search}`);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
  });

  it('a consent post without the form token (CSRF) issues no code', async () => {
    const flow = await startFlow(server(), confidential.clientId);
    const consent = await browser.get(`${flow.url.pathname}${flow.url.search}`);
    const fields = { ...hiddenFields(consent), decision: 'allow' };
    const forged = await browser.post(flow.url.pathname, { ...fields, csrf: 'forged' });
    expect(forged.status).toBe(400);
    expect(forged.location).toBeUndefined();
    const otherSite = await browser.post(flow.url.pathname, fields, { 'sec-fetch-site': 'cross-site' });
    expect(otherSite.status).toBe(400);
  });

  it('the consent page names the app, its redirect host and each scope, cannot be framed, and posts only here or to the app', async () => {
    const flow = await startFlow(server(), confidential.clientId, { scope: 'sessions:read clips:read' });
    const consent = await browser.get(`${flow.url.pathname}${flow.url.search}`);
    expect(consent.body).toContain('Allow Insights Hub to read your results?');
    expect(consent.body).toContain('<strong>127.0.0.1:51234</strong>');
    expect(consent.body).toContain('(<code>sessions:read</code>)');
    expect(consent.body).toContain('(<code>clips:read</code>)');
    expect(consent.body).toMatch(/value="allow"[^>]*>Allow<\/button>/);
    expect(consent.body).toMatch(/value="deny">Deny<\/button>/);
    const csp = consent.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:51234");
  });

  it('a denial goes back as access_denied with state and iss', async () => {
    const flow = await startFlow(server(), confidential.clientId);
    const { answer } = await approve(browser, flow.url.href, 'deny');
    expect(Object.fromEntries(new URL(answer.location!).searchParams)).toEqual({ error: 'access_denied', error_description: 'The user denied the request.', state: flow.state, iss: server().issuer });
  });

  it('mix-up: a response of one server is refused by a client that talks to the other (iss, RFC 9207)', async () => {
    const flow = await startFlow(servers()[0]!, confidential.clientId);
    const { answer } = await approve(browser, flow.url.href);
    const otherAs = await discover(servers()[1]!);
    expect(() => oauth.validateAuthResponse(otherAs, { client_id: confidential.clientId }, new URL(answer.location!), flow.state)).toThrow(/iss/);
  });

  it('a signed-out user is sent to sign in, and back', async () => {
    const flow = await startFlow(server(), confidential.clientId);
    const stranger = new FormBrowser(t.url);
    const answer = await stranger.get(`${flow.url.pathname}${flow.url.search}`);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`/account/sign-in?return_to=${encodeURIComponent(`${flow.url.pathname}${flow.url.search}`)}`);
  });
});

describe('attacks on the token endpoint', () => {
  const server = () => servers()[1]!;
  const tokenUrl = () => `${server().issuer}/v1/token`;
  const post = (form: Record<string, string>, app = confidential) =>
    fetch(tokenUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` },
      body: new URLSearchParams(form),
    });

  async function freshCode(): Promise<{ code: string; flow: Flow }> {
    const flow = await startFlow(server(), confidential.clientId);
    const { answer } = await approve(browser, flow.url.href);
    return { code: new URL(answer.location!).searchParams.get('code')!, flow };
  }
  const exchange = (code: string, verifier: string, redirectUri = 'http://127.0.0.1:51234/callback') =>
    post({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri });

  it('a wrong verifier gets nothing, and uses the code up', async () => {
    const { code, flow } = await freshCode();
    const wrong = await exchange(code, oauth.generateRandomCodeVerifier());
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await exchange(code, flow.verifier)).status).toBe(400);
  });

  it('a code lives 60 seconds', async () => {
    const before = Date.now();
    const { code, flow } = await freshCode();
    const row = await t.runtime.store.database.one<{ expires_at: number }>('SELECT expires_at FROM authorization_codes WHERE code_hash = @hash', { hash: tokenHash(code) });
    expect(Number(row!.expires_at) - before).toBeGreaterThanOrEqual(60_000);
    expect(Number(row!.expires_at) - Date.now()).toBeLessThanOrEqual(60_000);
    // The same code, as if 60 s had passed.
    await t.runtime.store.database.write(null, (tx) => tx.run('UPDATE authorization_codes SET expires_at = @now WHERE code_hash = @hash', { hash: tokenHash(code), now: Date.now() }));
    expect(await (await exchange(code, flow.verifier)).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a redirect URI other than the request\'s gets nothing', async () => {
    const { code, flow } = await freshCode();
    expect(await (await exchange(code, flow.verifier, 'http://127.0.0.1:51235/callback')).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a code replayed revokes what its first use issued', async () => {
    const { code, flow } = await freshCode();
    const first = await exchange(code, flow.verifier);
    expect(first.status).toBe(200);
    const tokens = (await first.json()) as { access_token: string; refresh_token: string };
    expect((await api(tokens.access_token)).status).toBe(200);
    expect(await (await exchange(code, flow.verifier)).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await api(tokens.access_token)).status).toBe(401);
    expect((await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status).toBe(400);
  });

  it('another app cannot exchange the code', async () => {
    const other = await registerApp(t.runtime, { name: 'Other', redirectUris: [REDIRECT], scopes: ['studies:read'], clientType: 'confidential' }, by);
    const { code, flow } = await freshCode();
    const answer = await post({ grant_type: 'authorization_code', code, code_verifier: flow.verifier, redirect_uri: 'http://127.0.0.1:51234/callback' }, { clientId: other.app.clientId, clientSecret: other.clientSecret! });
    expect(await answer.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a refresh token reused revokes the whole family', async () => {
    const { code, flow } = await freshCode();
    const tokens = (await (await exchange(code, flow.verifier)).json()) as { access_token: string; refresh_token: string };
    const rotated = (await (await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).json()) as { access_token: string; refresh_token: string };
    expect((await api(rotated.access_token)).status).toBe(200);
    const reuse = await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await api(rotated.access_token)).status).toBe(401);
    expect((await api(tokens.access_token)).status).toBe(401);
    expect((await post({ grant_type: 'refresh_token', refresh_token: rotated.refresh_token })).status).toBe(400);
  });

  it('a refresh token presented twice at once is rotated once, and the second use revokes the family', async () => {
    const { code, flow } = await freshCode();
    const tokens = (await (await exchange(code, flow.verifier)).json()) as { access_token: string; refresh_token: string };
    // Both arrive in the same turn, so they share one transaction: the second must still see the first's rotation.
    const answers = await Promise.all([1, 2].map(() => post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const rotated = (await answers.find((a) => a.status === 200)!.json()) as { access_token: string; refresh_token: string };
    expect(await answers.find((a) => a.status === 400)!.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await api(rotated.access_token)).status).toBe(401);
    expect((await post({ grant_type: 'refresh_token', refresh_token: rotated.refresh_token })).status).toBe(400);
  });

  it('a rotation sees the rotations before it in the same shared transaction', async () => {
    const { code, flow } = await freshCode();
    const tokens = (await (await exchange(code, flow.verifier)).json()) as { refresh_token: string };
    const next = (hash: string) => ({ hash, expiresAt: Date.now() + 60_000 });
    // Handed over in the same turn of the event loop: one batch, in this order.
    const [first, second] = await Promise.all([
      t.runtime.store.apps.rotateRefreshToken(tokenHash(tokens.refresh_token), confidential.clientId, next('batch-next-1'), () => null),
      t.runtime.store.apps.rotateRefreshToken(tokenHash(tokens.refresh_token), confidential.clientId, next('batch-next-2'), () => null),
    ]);
    expect(first).toMatchObject({ ok: true });
    expect(second).toMatchObject({ ok: false, reason: 'reused' });
  });

  it('rotations of many families at once each get their own answer', async () => {
    const families: { refresh_token: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const { code, flow } = await freshCode();
      families.push((await (await exchange(code, flow.verifier)).json()) as { refresh_token: string });
    }
    const rotate = (refreshToken: string) => post({ grant_type: 'refresh_token', refresh_token: refreshToken });
    const first = await Promise.all(families.map((f) => rotate(f.refresh_token)));
    expect(first.map((a) => a.status)).toEqual(families.map(() => 200));
    const rotated = (await Promise.all(first.map((a) => a.json()))) as { access_token: string; refresh_token: string }[];
    expect(new Set(rotated.map((r) => r.refresh_token)).size).toBe(families.length);
    for (const r of rotated) expect((await api(r.access_token)).status).toBe(200);
    const second = await Promise.all(rotated.map((r) => rotate(r.refresh_token)));
    expect(second.map((a) => a.status)).toEqual(families.map(() => 200));
  });

  it('a refresh may narrow the scope, never widen it', async () => {
    const { tokens } = await obtainTokens(server(), confidential, { scope: 'sessions:read' });
    const wider = await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, scope: 'sessions:read studies:read' });
    expect(wider.status).toBe(400);
    expect(await wider.json()).toMatchObject({ error: 'invalid_scope' });
  });

  it('a token narrowed to sessions:read reads sessions, and is refused the other families', async () => {
    const { tokens } = await obtainTokens(server(), confidential, { scope: 'sessions:read' });
    expect((await api(tokens.access_token, `/api/v2/sessionResults?testId=${s.testId}`)).status).toBe(200);
    const refused = await api(tokens.access_token);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('insufficient_scope');
  });

  it('the user revokes the app on their page: every token of it stops working', async () => {
    const { tokens } = await obtainTokens(server());
    const page = await browser.get('/account/apps');
    expect(page.body).toContain('Insights Hub');
    const revoked = await browser.post('/account/apps/revoke', { csrf: browser.formToken(page), client_id: confidential.clientId });
    expect(revoked.body).toContain('Revoked');
    expect((await api(tokens.access_token)).status).toBe(401);
    expect((await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! })).status).toBe(400);
  });

  it('an app revokes its refresh token (RFC 7009): the grant ends, with its access tokens; an access token ends alone', async () => {
    const revoke = (token: string, app: { clientId: string; clientSecret?: string } = confidential) =>
      fetch(`${server().issuer}/v1/revoke`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(app.clientSecret ? { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` } : {}),
        },
        body: new URLSearchParams({ token, ...(app.clientSecret ? {} : { client_id: app.clientId }) }),
      });
    const first = await obtainTokens(server());
    const second = await obtainTokens(server());
    expect((await revoke(second.tokens.access_token)).status).toBe(200);
    expect((await api(second.tokens.access_token)).status).toBe(401);
    expect((await post({ grant_type: 'refresh_token', refresh_token: second.tokens.refresh_token! })).status).toBe(200);
    expect((await revoke(first.tokens.refresh_token!)).status).toBe(200);
    expect((await api(first.tokens.access_token)).status).toBe(401);
    expect((await post({ grant_type: 'refresh_token', refresh_token: first.tokens.refresh_token! })).status).toBe(400);
    const viaPublic = await obtainTokens(server(), publicApp);
    expect((await revoke(viaPublic.tokens.refresh_token!, publicApp)).status).toBe(200);
    expect((await api(viaPublic.tokens.access_token)).status).toBe(401);
  });

  it('a confidential app without its secret is invalid_client', async () => {
    const answer = await post({ grant_type: 'refresh_token', refresh_token: 'x' }, { clientId: confidential.clientId, clientSecret: 'wrong' });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ error: 'invalid_client' });
  });
});

describe('an approval is remembered where only the app can receive the code (an https redirect URI)', () => {
  const server = () => servers()[1]!;
  const HUB = 'https://hub.example.com/callback';
  let hub: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    const registered = await registerApp(t.runtime, { name: 'Hub Web', redirectUris: [HUB], scopes: ['studies:read', 'sessions:read', 'clips:read'], clientType: 'confidential' }, by);
    hub = { clientId: registered.app.clientId, clientSecret: registered.clientSecret! };
  });

  const authorize = async (scope: string, params: Record<string, string> = {}) => {
    const flow = await startFlow(server(), hub.clientId, { redirect_uri: HUB, scope, ...params });
    return { flow, page: await browser.get(`${flow.url.pathname}${flow.url.search}`) };
  };
  /** The app exchanges the code the browser came back with: the approval becomes a grant. */
  const redeem = async (location: string, verifier: string) => {
    const back = new URL(location);
    expect(`${back.origin}${back.pathname}`).toBe(HUB);
    const answer = await fetch(`${server().issuer}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${hub.clientId}:${hub.clientSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, code_verifier: verifier, redirect_uri: HUB }),
    });
    expect(answer.status).toBe(200);
    return (await answer.json()) as { access_token: string; scope: string };
  };

  it('the same or fewer scopes skip the consent page; more scopes, another resource or prompt=consent ask again; a revocation forgets it', async () => {
    const first = await authorize('sessions:read clips:read');
    expect(first.page.status).toBe(200);
    expect(first.page.body).toContain('Allow Hub Web to read your results?');
    const allowed = await browser.post(first.flow.url.pathname, { ...hiddenFields(first.page), decision: 'allow' });
    await redeem(allowed.location!, first.flow.verifier);

    const same = await authorize('sessions:read clips:read');
    expect(same.page.status).toBe(303);
    expect(Object.fromEntries(new URL(same.page.location!).searchParams)).toMatchObject({ state: same.flow.state, iss: server().issuer });
    expect((await redeem(same.page.location!, same.flow.verifier)).scope).toBe('sessions:read clips:read');
    const fewer = await authorize('clips:read');
    expect(fewer.page.status).toBe(303);
    expect((await redeem(fewer.page.location!, fewer.flow.verifier)).scope).toBe('clips:read');

    expect((await authorize('sessions:read studies:read')).page.status).toBe(200);
    expect((await authorize('sessions:read', { resource: `${t.url}/mcp` })).page.status).toBe(200);
    expect((await authorize('sessions:read', { prompt: 'consent' })).page.status).toBe(200);

    const apps = await browser.get('/account/apps');
    expect((await browser.post('/account/apps/revoke', { csrf: browser.formToken(apps), client_id: hub.clientId })).body).toContain('Revoked');
    expect((await authorize('sessions:read')).page.status).toBe(200);
  });

  it('a loopback redirect asks every time, approved before or not (any program on the device may listen there)', async () => {
    await obtainTokens(server(), confidential, { scope: 'sessions:read' });
    const flow = await startFlow(server(), confidential.clientId, { scope: 'sessions:read' });
    expect((await browser.get(`${flow.url.pathname}${flow.url.search}`)).status).toBe(200);
  });
});

describe('resource (RFC 8707) at the token endpoint for a user\'s grant: one the user granted, or invalid_target', () => {
  const server = () => servers()[1]!;
  const post = (form: Record<string, string>) =>
    fetch(`${server().issuer}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${confidential.clientId}:${confidential.clientSecret}`).toString('base64')}` },
      body: new URLSearchParams(form),
    });
  const audienceOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { aud: string }).aud;
  const codeFor = async (params: Record<string, string>) => {
    const flow = await startFlow(server(), confidential.clientId, params);
    const { answer } = await approve(browser, flow.url.href);
    return { code: new URL(answer.location!).searchParams.get('code')!, verifier: flow.verifier };
  };
  const exchange = ({ code, verifier }: { code: string; verifier: string }, resource?: string) =>
    post({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:51234/callback', ...(resource ? { resource } : {}) });

  it('a code granted for the MCP endpoint: the same resource is served, the REST API is invalid_target (and the code is used up)', async () => {
    const mcp = `${t.url}/mcp`;
    const granted = await codeFor({ resource: mcp });
    const refused = await exchange(granted, t.url);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_target' });
    expect(await (await exchange(granted, mcp)).json()).toMatchObject({ error: 'invalid_grant' });

    const tokens = (await (await exchange(await codeFor({ resource: mcp }), mcp)).json()) as { access_token: string; refresh_token: string };
    expect(audienceOf(tokens.access_token)).toBe(mcp);
    // At refresh: another resource is refused and spends nothing; the granted one is served.
    const wrong = await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, resource: t.url });
    expect(await wrong.json()).toMatchObject({ error: 'invalid_target' });
    const foreign = await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, resource: 'https://elsewhere.example/' });
    expect(await foreign.json()).toMatchObject({ error: 'invalid_target' });
    const refreshed = await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, resource: mcp });
    expect(refreshed.status).toBe(200);
    expect(audienceOf(((await refreshed.json()) as { access_token: string }).access_token)).toBe(mcp);
  });

  it('a grant made without a resource serves the REST API: named by its URI it is served, the MCP endpoint is invalid_target', async () => {
    const tokens = (await (await exchange(await codeFor({}), t.url)).json()) as { access_token: string; refresh_token: string };
    expect(audienceOf(tokens.access_token)).toBe(t.url);
    expect((await api(tokens.access_token)).status).toBe(200);
    const mcp = await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, resource: `${t.url}/mcp` });
    expect(await mcp.json()).toMatchObject({ error: 'invalid_target' });
    // A wider scope is refused before the rotation too: the same refresh token still works (no reuse, no revoked family).
    const wider = await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: `${server().scope} made:up` });
    expect(await wider.json()).toMatchObject({ error: 'invalid_scope' });
    expect((await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status).toBe(200);
  });
});

describe('an app introspects its own tokens (RFC 7662, oauth4webapi)', () => {
  const server = () => servers()[1]!;

  it('a confidential app learns about its access and refresh tokens while they work, and nothing of another app\'s', async () => {
    const { flow, tokens, client, auth } = await obtainTokens(server(), confidential, { scope: 'sessions:read' });
    const introspect = async (token: string, as = flow.as, c = client, a = auth) =>
      oauth.processIntrospectionResponse(as, c, await oauth.introspectionRequest(as, c, a, token, insecure));
    const user = await t.runtime.store.credentials.findUserByEmail(s.email);
    expect(await introspect(tokens.access_token)).toMatchObject({ active: true, client_id: confidential.clientId, sub: user!.id, username: s.email, scope: 'sessions:read', token_type: 'Bearer' });
    const refresh = await introspect(tokens.refresh_token!);
    expect(refresh).toMatchObject({ active: true, client_id: confidential.clientId, sub: user!.id, username: s.email, scope: 'sessions:read' });
    // 30 days (the two instants are taken a few milliseconds apart).
    expect(Math.abs(refresh.exp! - refresh.iat! - 30 * 24 * 3600)).toBeLessThanOrEqual(1);

    const other = await registerApp(t.runtime, { name: 'Nosy', redirectUris: [REDIRECT], scopes: ['studies:read'], clientType: 'confidential' }, by);
    const nosy = { client_id: other.app.clientId };
    for (const token of [tokens.access_token, tokens.refresh_token!]) {
      expect(await introspect(token, flow.as, nosy, oauth.ClientSecretBasic(other.clientSecret!))).toEqual({ active: false });
    }

    // Rotated out, the refresh token is spent; revoked, the grant's access tokens end.
    const refreshed = await oauth.processRefreshTokenResponse(flow.as, client, await oauth.refreshTokenGrantRequest(flow.as, client, auth, tokens.refresh_token!, insecure));
    expect(await introspect(tokens.refresh_token!)).toEqual({ active: false });
    await oauth.processRevocationResponse(await oauth.revocationRequest(flow.as, client, auth, refreshed.refresh_token!, insecure));
    expect(await introspect(refreshed.refresh_token!)).toEqual({ active: false });
    expect(await introspect(refreshed.access_token)).toEqual({ active: false });
  });

  it('a public app cannot introspect (it has no credentials to authenticate with), and a wrong secret is invalid_client', async () => {
    const { tokens } = await obtainTokens(server(), publicApp);
    const introspect = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${server().issuer}/v1/introspect`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body) });
    const asPublic = await introspect({ token: tokens.access_token, client_id: publicApp.clientId });
    expect(asPublic.status).toBe(401);
    expect(await asPublic.json()).toMatchObject({ error: 'invalid_client' });
    const wrongSecret = await introspect({ token: tokens.access_token }, { authorization: `Basic ${Buffer.from(`${confidential.clientId}:wrong`).toString('base64')}` });
    expect(wrongSecret.status).toBe(401);
  });
});
