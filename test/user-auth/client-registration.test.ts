import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ClientDirectory, fetchMetadataDocument, isPrivateAddress } from '../../src/oauth/client-metadata-documents.js';
import { approve } from '../helpers/authorize-flow.js';
import { FormBrowser } from '../helpers/form-browser.js';
import { freePort } from '../helpers/net.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { seedUserWithPassword, signIn } from '../helpers/users.js';

const insecure = { [oauth.allowInsecureRequests]: true };
let t: TestApp;
let s: Seeded;

beforeAll(async () => {
  const port = await freePort();
  t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}`, TRUST_PROXY: 'true', DYNAMIC_REGISTRATION_PER_ADDRESS: '3' } });
  s = await seed(t.runtime, { sessions: 1 });
  await seedUserWithPassword(t.runtime, s.email);
});
afterAll(() => t.close());

const server = () => t.runtime.servers.custom;
const register = (body: unknown, address = '192.0.2.1') =>
  fetch(`${server().issuer}/v1/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': address }, body: JSON.stringify(body) });

describe('RFC 7591 dynamic registration of public apps', () => {
  it('registers an app that then gets a user\'s token with PKCE alone; the consent page says its name is not verified', async () => {
    const answer = await register({ client_name: 'Some MCP client', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] });
    expect(answer.status).toBe(201);
    const registered = (await answer.json()) as { client_id: string; token_endpoint_auth_method: string; scope: string };
    expect(registered.token_endpoint_auth_method).toBe('none');
    expect(registered.scope).toBe('studies:read sessions:read videos:read clips:read');

    const issuer = new URL(server().issuer);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    expect(as.registration_endpoint).toBe(`${server().issuer}/v1/register`);
    expect(as.client_id_metadata_document_supported).toBe(true);
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({ client_id: registered.client_id, redirect_uri: 'http://127.0.0.1:40001/callback', response_type: 'code', scope: 'sessions:read', state: 'st', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }).toString();
    const browser = new FormBrowser(t.url);
    await signIn(browser, s.email);
    const { consent, answer: back } = await approve(browser, url.href);
    expect(consent.body).toContain('This app registered itself');
    const client = { client_id: registered.client_id };
    const params = oauth.validateAuthResponse(as, client, new URL(back.location!), 'st');
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, 'http://127.0.0.1:40001/callback', verifier, insecure));
    expect(tokens.scope).toBe('sessions:read');
  });

  it.each([
    ['an http redirect that is not loopback', { redirect_uris: ['http://app.example.com/cb'] }, 'invalid_redirect_uri', '192.0.2.11'],
    ['a private-use scheme', { redirect_uris: ['com.example.app:/cb'] }, 'invalid_redirect_uri', '192.0.2.12'],
    ['a confidential client', { redirect_uris: ['https://app.example.com/cb'], token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata', '192.0.2.13'],
    ['the implicit grant', { redirect_uris: ['https://app.example.com/cb'], grant_types: ['implicit'] }, 'invalid_client_metadata', '192.0.2.14'],
    ['an unknown scope', { redirect_uris: ['https://app.example.com/cb'], scope: 'admin' }, 'invalid_client_metadata', '192.0.2.15'],
  ])('refuses %s', async (_what, body, error, address) => {
    const answer = await register(body, address);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error });
  });

  it('is rate-limited per address', async () => {
    for (let i = 0; i < 3; i++) expect((await register({ redirect_uris: ['https://app.example.com/cb'] }, '192.0.2.3')).status).toBe(201);
    const refused = await register({ redirect_uris: ['https://app.example.com/cb'] }, '192.0.2.3');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('can be switched off: not served, not advertised', async () => {
    const off = await startTestApp({ env: { DYNAMIC_REGISTRATION: 'off' } });
    try {
      const id = off.runtime.servers.custom.id;
      expect((await fetch(`${off.url}/oauth2/${id}/v1/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
      const metadata = (await (await fetch(`${off.url}/oauth2/${id}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(metadata).not.toHaveProperty('registration_endpoint');
    } finally {
      await off.close();
    }
  });
});

describe('client ID metadata documents', () => {
  let dir: string;
  let https: Server;
  let origin: string;
  let ca: Buffer;
  let served: Record<string, { status?: number; type?: string; body: string }>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cimd-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
    ca = readFileSync(join(dir, 'cert.pem'));
    served = {};
    https = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: ca }, (req, res) => {
      const doc = served[req.url ?? ''];
      if (!doc) return res.writeHead(404).end();
      res.writeHead(doc.status ?? 200, { 'content-type': doc.type ?? 'application/json', ...(doc.status === 302 ? { location: '/elsewhere' } : {}) }).end(doc.body);
    });
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    origin = `https://localhost:${(https.address() as { port: number }).port}`;
  });
  afterAll(() => {
    https.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const document = (clientId: string, extra: Record<string, unknown> = {}) => JSON.stringify({ client_id: clientId, client_name: 'Doc App', redirect_uris: ['http://127.0.0.1/cb'], ...extra });
  const directory = (allowPrivate = true, clock = new ManualClock(Date.now())) =>
    new ClientDirectory({ apps: t.runtime.store.apps, clock, enabled: true, fetch: (url) => fetchMetadataDocument(url, { allowPrivate, ca }) });

  it('reads the app from its document, once an hour', async () => {
    const clientId = `${origin}/apps/one.json`;
    served['/apps/one.json'] = { body: document(clientId) };
    const clock = new ManualClock(Date.now());
    const apps = directory(true, clock);
    expect(await apps.find(clientId)).toMatchObject({ clientId, name: 'Doc App', origin: 'metadata', clientType: 'public', redirectUris: ['http://127.0.0.1/cb'] });
    served['/apps/one.json'] = { body: document(clientId, { client_name: 'Renamed' }) };
    expect((await apps.find(clientId))!.name).toBe('Doc App');
    clock.advance(3600_000 + 60_000);
    expect((await apps.find(clientId))!.name).toBe('Renamed');
  });

  it.each([
    ['a document naming another client_id', { body: document('https://other.example/app.json') }],
    ['a redirect', { status: 302, body: '' }],
    ['a document that is not JSON', { type: 'text/html', body: '<html>' }],
    ['a document larger than 5 KB', { body: document('x', { padding: 'x'.repeat(6000) }) }],
    ['a document with an http redirect URI', { body: 'REPLACE' }],
  ])('refuses %s', async (what, doc) => {
    const path = `/apps/${encodeURIComponent(what)}.json`;
    const clientId = `${origin}${path}`;
    served[path] = doc.body === 'REPLACE' ? { body: document(clientId, { redirect_uris: ['http://app.example.com/cb'] }) } : doc;
    expect(await directory().find(clientId)).toBeNull();
  });

  it('SSRF: a document on a loopback or private address is refused before any connection, unless the operator allows it', async () => {
    const connections: number[] = [];
    const tcp = createTcpServer((socket) => (connections.push(1), socket.destroy()));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const port = (tcp.address() as { port: number }).port;
    try {
      for (const url of [`https://127.0.0.1:${port}/app.json`, `https://localhost:${port}/app.json`, `https://[::1]:${port}/app.json`]) {
        await expect(fetchMetadataDocument(url, { allowPrivate: false })).rejects.toThrow(/private address/);
      }
      expect(connections).toEqual([]);
      for (const address of ['10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fd00::1', '::ffff:127.0.0.1']) expect(isPrivateAddress(address), address).toBe(true);
      expect(isPrivateAddress('93.184.216.34')).toBe(false);

      // Through the authorization endpoint: the page refuses the app, no redirect, no connection.
      const browser = new FormBrowser(t.url);
      await signIn(browser, s.email);
      const clientId = `https://127.0.0.1:${port}/app.json`;
      const page = await browser.get(`/oauth2/${server().id}/v1/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: 'http://127.0.0.1/cb', response_type: 'code' })}`);
      expect(page.status).toBe(400);
      expect(page.location).toBeUndefined();
      expect(connections).toEqual([]);
    } finally {
      tcp.close();
    }
  });
});
