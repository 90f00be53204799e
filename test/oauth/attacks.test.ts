import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { seedClient, storeActor } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { httpRequest, rawRequest, type RawResponse } from '../helpers/raw-http.js';
import { callApi, FORM_CONTENT_TYPE, EXPIRED_TOKEN_PROBLEM, INVALID_TOKEN_PROBLEM } from '../helpers/token-operations.js';
import {
  assembleJws,
  authHeaders,
  basicAuthorization,
  decodeJws,
  forgeToken,
  mintToken,
  serverOf,
  type ForgeOptions,
} from '../helpers/tokens.js';

/**
 * Attacks on the token checks and the HTTP surface that test/access/authentication.test.ts
 * does not already cover. Each token attack changes one thing in an otherwise valid token,
 * so it fails only if the check it targets is missing.
 */

const START = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const clock = new ManualClock(START);
const { t, client } = await startSeededApp({
  clock,
  env: { RATE_LIMIT_API: '1000000', RATE_LIMIT_TOKEN_ADDRESS: '1000000', RATE_LIMIT_TOKEN_CLIENT: '1000000' },
});

/** An attacker's own key pair, and a server of theirs that publishes it. */
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
let attackerJwk: JWK;
let attackerServer: Server;
let attackerUrl: string;
let attackerHits = 0;

beforeAll(async () => {
  attackerJwk = { ...(await exportJWK(attacker.publicKey)), alg: 'RS256', use: 'sig' };
  attackerJwk.kid = await calculateJwkThumbprint(attackerJwk);
  attackerServer = createServer((_req, res) => {
    attackerHits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [attackerJwk] }));
  });
  await new Promise<void>((resolve) => attackerServer.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${(attackerServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => attackerServer.close(resolve));
});
afterEach(() => {
  clock.set(START);
  vi.restoreAllMocks();
});

const forge = (changes: Omit<ForgeOptions, 'clientId'> = {}) => forgeToken(t, { clientId: client.clientId, ...changes });
const signedByAttacker = (header: Record<string, unknown>) =>
  forge({ key: attacker.privateKey as KeyObject, header: { kid: attackerJwk.kid, ...header } });

async function expectRefused(token: string, problem: object = INVALID_TOKEN_PROBLEM): Promise<void> {
  for (const scheme of ['bearer', 'token'] as const) {
    const res = await callApi(t, authHeaders(token, scheme));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="results-api", error="invalid_token"/);
    expect(await res.json()).toEqual(problem);
  }
}

async function expectAccepted(token: string): Promise<void> {
  for (const scheme of ['bearer', 'token'] as const) expect((await callApi(t, authHeaders(token, scheme))).status).toBe(200);
}

describe('kid', () => {
  it('the control: a forged token with our kid and key is accepted', async () => {
    await expectAccepted(await forge());
  });

  it.each([
    ['a path', '../../etc/passwd'],
    ['an absolute path', '/dev/zero'],
    ['SQL', "' OR 1=1 --"],
    ['SQL with a statement', "x'; DROP TABLE signing_keys; --"],
    ['a URL', 'http://127.0.0.1:1/keys.json'],
    ['a NUL byte', 'kid\u0000'],
    ['a prototype name', '__proto__'],
    ['1000 characters', 'k'.repeat(1000)],
    ['an empty string', ''],
  ])('with %s, signed with our key, is refused', async (_name, kid) => {
    await expectRefused(await forge({ header: { kid } }));
  });

  it.each([
    ['a number', 1],
    ['an object', { kid: 'x' }],
    ['an array holding our kid', ['OUR_KID']],
  ])('of type %s is refused', async (_name, kid) => {
    const ours = t.runtime.keys.signingKey().kid;
    await expectRefused(await forge({ header: { kid: JSON.parse(JSON.stringify(kid).replace('OUR_KID', ours)) } }));
  });

  it('the keys were not harmed by the injection attempts', async () => {
    expect((await t.runtime.store.signingKeys.list()).map((k) => k.kid)).toEqual([t.runtime.keys.signingKey().kid]);
    await expectAccepted(await mintToken(t, client));
  });

  it('a flood of made-up kids reloads the keys from the database at most once a second', async () => {
    const reload = vi.spyOn(t.runtime.keys, 'reload');
    clock.advance(1000);
    for (let i = 0; i < 20; i++) {
      const res = await callApi(t, authHeaders(await forge({ header: { kid: `made-up-${i}` } })));
      expect(res.status).toBe(401);
    }
    expect(reload).toHaveBeenCalledTimes(1);
  });
});

describe('jku, x5u and jwk header members are never followed', () => {
  it.each([
    ['jku naming the attacker JWKS', () => ({ jku: `${attackerUrl}/jwks.json` })],
    ['x5u naming the attacker certificate', () => ({ x5u: `${attackerUrl}/cert.pem` })],
    ['jwk embedding the attacker key', () => ({ jwk: publicPart(attackerJwk) })],
    ['jwk embedding the attacker key, with our kid', () => ({ jwk: publicPart(attackerJwk), kid: t.runtime.keys.signingKey().kid })],
    ['jku, x5u and jwk at once', () => ({ jku: `${attackerUrl}/jwks.json`, x5u: `${attackerUrl}/c.pem`, jwk: publicPart(attackerJwk) })],
  ])('a token signed with the attacker key carrying %s is refused, and the attacker server never hears from us', async (_n, header) => {
    const before = attackerHits;
    await expectRefused(await signedByAttacker(header()));
    expect(attackerHits).toBe(before);
  });

  // Decision: the members are ignored, not refused. Only our key ring chooses the key (by kid),
  // and the signature covers the header, so such a token can only have been made with our key.
  it.each([
    ['jku', () => ({ jku: `${attackerUrl}/jwks.json` })],
    ['x5u', () => ({ x5u: `${attackerUrl}/cert.pem` })],
    ['jwk (the attacker key)', () => ({ jwk: publicPart(attackerJwk) })],
  ])('a token signed with OUR key carrying a bogus %s is accepted: the member is ignored, never fetched', async (_n, header) => {
    const before = attackerHits;
    await expectAccepted(await forge({ header: header() }));
    expect(attackerHits).toBe(before);
  });
});

describe('other header and encoding tricks', () => {
  it('crit naming an extension we do not understand is refused (RFC 7515 §4.1.11)', async () => {
    const { header, payload } = decodeJws(await forge());
    await expectRefused(signWithOurKey({ ...header, crit: ['exp-ext'], 'exp-ext': true }, payload));
  });

  it.each(['RS384', 'RS512', 'PS256'])('alg %s signed with our RSA key is refused: only RS256 is accepted', async (alg) => {
    await expectRefused(await forge({ header: { alg } }));
  });

  it.each([
    ['five segments (JWE-shaped)', (tok: string) => `${tok}.AAAA.BBBB`],
    ['a padded signature', (tok: string) => `${tok}==`],
    ['a trailing dot', (tok: string) => `${tok}.`],
    ['standard base64 characters', (tok: string) => tok.replace(/-/g, '+').replace(/_/g, '/')],
    ['the JSON serialization', (tok: string) => JSON.stringify(decodeJws(tok))],
  ])('%s of a valid token is refused', async (_name, change) => {
    const token = await forge();
    const changed = change(token);
    if (changed === token) return; // nothing to replace in this token's encoding
    const res = await callApi(t, { token: changed });
    expect(res.status).toBe(401);
  });

  it('a payload that is not a JSON object, correctly signed, is refused', async () => {
    const { header, signature } = decodeJws(await forge());
    await expectRefused(assembleJws(header, ['not', 'an', 'object'], signature));
  });
});

describe('scope and scp (RFC 9068 §2.2.3: scope grants)', () => {
  const readScope = () => serverOf(t, 'B').scope;

  it('the control: scope and scp naming the same scopes are accepted, and scope alone too', async () => {
    await expectAccepted(await forge({ claims: { scope: readScope(), scp: [readScope()] } }));
    await expectAccepted(await forge({ claims: { scope: readScope(), scp: undefined } }));
  });

  it('scp granting a read scope that scope does not is refused, signed with our key', async () => {
    await expectRefused(await forge({ claims: { scope: 'studies:write', scp: [readScope()] } }));
  });

  it.each([
    ['names a scope more than scope', () => [readScope(), 'studies:write']],
    ['names fewer scopes than scope', () => []],
    ['is a string, not a list', () => readScope()],
    ['holds a non-string', () => [readScope(), 7]],
  ])('scp that %s is refused', async (_name, scp) => {
    await expectRefused(await forge({ claims: { scope: readScope(), scp: scp() } }));
  });

  it('scope without a read scope, and no scp, is 403 insufficient_scope', async () => {
    const res = await callApi(t, authHeaders(await forge({ claims: { scope: 'studies:write', scp: undefined } })));
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
  });
});

describe('the verified-token cache', () => {
  it('serves only the very token it verified: its signature under another payload is refused', async () => {
    const token = await forge();
    await expectAccepted(token); // verified once, so cached
    const { header, payload, signature } = decodeJws(token);
    // Another client's claims under the cached token's signature (the cache is keyed by its end).
    const other = await seedClient(t.runtime);
    const claims = { ...payload, sub: other.clientId, client_id: other.clientId, cid: other.clientId };
    await expectRefused(assembleJws(header, claims, signature));
    await expectAccepted(token);
  });
});

describe('time and principal', () => {
  it('nbf in the future is refused until that time comes', async () => {
    const now = Math.floor(START / 1000);
    const token = await forge({ claims: { nbf: now + 60 } });
    await expectRefused(token);
    clock.advance(60_000);
    await expectAccepted(token);
  });

  it('nbf now is accepted', async () => {
    await expectAccepted(await forge({ claims: { nbf: Math.floor(START / 1000) } }));
  });

  it('iat in the future does not extend a token: exp alone decides', async () => {
    const now = Math.floor(START / 1000);
    await expectRefused(await forge({ claims: { iat: now + 7200, exp: now } }), EXPIRED_TOKEN_PROBLEM);
  });

  it('a token of a disabled user is refused on the next request, on both servers', async () => {
    const holder = await seedClient(t.runtime);
    const tokens = [await mintToken(t, holder, 'A'), await mintToken(t, holder, 'B')];
    for (const token of tokens) await expectAccepted(token);
    await t.runtime.store.credentials.setUserStatus(holder.email, 'disabled', storeActor);
    for (const token of tokens) await expectRefused(token);
  });
});

// --- the HTTP surface -------------------------------------------------------------------------

const API_PATH = () => '/api/v2/sessionResults';
const OAUTH_PATHS = () =>
  ['default', serverOf(t, 'B').id].flatMap((id) => ['token', 'introspect', 'revoke'].map((e) => `/oauth2/${id}/v1/${e}`));

/** Documented error shapes: problem+json for the API, its own for the Legacy (v1) family, RFC 6749 §5.2 JSON under /oauth2. */
function expectDocumentedError(res: RawResponse, family: 'api' | 'legacy' | 'oauth'): void {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  if (family === 'legacy') {
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(body).sort()).toEqual(['errorCode', 'errorMessage']);
  } else if (family === 'api') {
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(Object.keys(body).sort()).toEqual(['detail', 'status', 'title', 'type']);
    expect(body.status).toBe(res.status);
    expect(body.type).toMatch(/^urn:results-api:problem:[a-z-]+$/);
  } else {
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
    expect(body.error).toMatch(/^[a-z_]+$/);
  }
}

describe('oversized requests: 4xx in the documented shape, never 5xx', () => {
  const big = 'a'.repeat(20 * 1024);

  it.each(['authorization', 'token'])('a 20 KB %s header on the API is 431 (over Node’s 16 KiB header limit)', async (name) => {
    const res = await rawRequest(t.url, httpRequest('GET', API_PATH(), [[name, name === 'authorization' ? `Bearer ${big}` : big]]));
    expect(res.status).toBe(431);
    expectDocumentedError(res, 'api');
    expect(JSON.parse(res.body)).toEqual({
      type: 'urn:results-api:problem:headers-too-large',
      title: 'Request header fields too large',
      status: 431,
      detail: 'The request headers are larger than 16 KiB.',
    });
  });

  it('a 20 KB Basic header on every OAuth endpoint is 431 in the OAuth shape', async () => {
    for (const path of OAUTH_PATHS()) {
      const headers: [string, string][] = [
        ['authorization', `Basic ${big}`],
        ['content-type', FORM_CONTENT_TYPE],
      ];
      const res = await rawRequest(t.url, httpRequest('POST', path, headers, 'a=b'));
      expect(res.status).toBe(431);
      expectDocumentedError(res, 'oauth');
      expect(JSON.parse(res.body)).toEqual({
        error: 'invalid_request',
        error_description: 'The request headers are larger than 16 KiB.',
      });
    }
  });

  it('an 8 KB token (under the header limit, over any token we issue) is 401 invalid_token', async () => {
    await expectRefused(`${'a'.repeat(4000)}.${'b'.repeat(2000)}.${'c'.repeat(2000)}`);
  });

  it('a body over 16 KiB is 413 in the OAuth shape on every OAuth endpoint, by Content-Length or chunked', async () => {
    for (const path of OAUTH_PATHS()) {
      const form = `token=${'a'.repeat(17 * 1024)}&client_id=${client.clientId}&client_secret=${client.clientSecret}`;
      const byLength = await fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': FORM_CONTENT_TYPE }, body: form });
      expect(byLength.status).toBe(413);
      expect(await byLength.json()).toEqual({ error: 'invalid_request', error_description: 'The request body is too large.' });

      const chunk = 'a'.repeat(8 * 1024);
      const chunked = [1, 2, 3].map(() => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('') + '0\r\n\r\n';
      const res = await rawRequest(
        t.url,
        httpRequest('POST', path, [['content-type', FORM_CONTENT_TYPE], ['transfer-encoding', 'chunked']], chunked),
      );
      expect(res.status).toBe(413);
      expectDocumentedError(res, 'oauth');
    }
  });

  it('a long path segment is 400 in the family’s shape, not the router’s own answer', async () => {
    const res = await callApi(t, authHeaders(await mintToken(t, client)), `/usertesting/api/v1/workspaces/${'w'.repeat(300)}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errorCode: 'BAD_REQUEST', errorMessage: 'A path segment is longer than 200 characters.' });
  });
});

describe('garbage bytes in every header and field: 4xx in the documented shape, never 5xx', () => {
  const garbage: [string, string][] = [
    ['control characters', 'a\u0001b\u0007c\u001fd'],
    ['a NUL byte', 'a\u0000b'],
    ['a DEL byte', 'a\u007fb'],
    ['bytes that are not UTF-8', '\u00ff\u00fe\u00c3\u0028\u00a0\u00e9'],
    ['an overlong UTF-8 encoding of "/"', '\u00c0\u00af..\u00c0\u00af'],
    ['a lone continuation byte', '\u0080'],
    ['8 KB', 'x'.repeat(8 * 1024)],
    ['quotes and backslashes', '"\\"\'\\'],
    ['a bare CR', 'a\rb'],
  ];
  const headerNames = [
    ...['authorization', 'token', 'content-type', 'content-length', 'transfer-encoding'],
    ...['accept', 'x-request-id', 'cookie', 'host'],
  ];

  it.each(headerNames)('the %s header on the API (with a valid token elsewhere when possible)', async (name) => {
    const token = await mintToken(t, client);
    for (const [, value] of garbage) {
      const headers: [string, string][] = [[name, value]];
      if (name !== 'authorization' && name !== 'token') headers.push(['authorization', `Bearer ${token}`]);
      const res = await rawRequest(t.url, httpRequest('GET', API_PATH(), headers));
      if (res.status === 200) continue; // e.g. an odd Accept or Cookie is simply ignored
      expectDocumentedError(res, 'api');
    }
  });

  it.each(headerNames)('the %s header on every OAuth endpoint', async (name) => {
    const body = `grant_type=client_credentials&token=x&client_id=${client.clientId}&client_secret=${client.clientSecret}`;
    for (const path of OAUTH_PATHS()) {
      for (const [, value] of garbage) {
        const headers: [string, string][] = [[name, value]];
        if (name !== 'content-type') headers.push(['content-type', FORM_CONTENT_TYPE]);
        const res = await rawRequest(t.url, httpRequest('POST', path, headers, body));
        if (res.status === 200) continue; // e.g. an odd Accept is simply ignored
        expectDocumentedError(res, 'oauth');
      }
    }
  });

  it.each(['grant_type', 'scope', 'client_id', 'client_secret', 'token', 'token_type_hint'])(
    'the %s form field on every OAuth endpoint, raw and percent-encoded',
    async (field) => {
      const valid: Record<string, string> = {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        token: 'x',
      };
      for (const path of OAUTH_PATHS()) {
        for (const [, value] of garbage) {
          const encodings = [
            value, // raw bytes
            [...Buffer.from(value, 'latin1')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''), // %FF%FE...
            `${encodeURIComponent(value).slice(0, 20)}%`, // a truncated escape
          ];
          for (const encoded of encodings) {
            const fields = Object.entries({ ...valid, [field]: '' }).map(([k, v]) => (k === field ? `${k}=${encoded}` : `${k}=${v}`));
            if (!(field in valid)) fields.push(`${field}=${encoded}`);
            const res = await rawRequest(t.url, httpRequest('POST', path, [['content-type', FORM_CONTENT_TYPE]], fields.join('&')));
            if (res.status === 200) continue; // e.g. garbage token_type_hint or token: introspection says inactive
            expectDocumentedError(res, 'oauth');
          }
        }
      }
    },
  );

  it('the query string and path of the API and of OAuth paths', async () => {
    const token = await mintToken(t, client);
    for (const [, value] of garbage.filter(([n]) => n !== '8 KB')) {
      const escaped = [...Buffer.from(value, 'latin1')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
      const targets: [string, 'api' | 'legacy' | 'oauth'][] = [
        [`/api/v2/sessionResults?testId=${escaped}&limit=${escaped}`, 'api'],
        [`/api/v2/sessionResults?${escaped}=1`, 'api'],
        [`/v2/sessionResults?testId=${value}`, 'api'],
        [`/v1/workspaces/${escaped}`, 'legacy'],
        [`/usertesting/api/v1/workspaces/${value}`, 'legacy'],
        [`/usertesting/api/v1/studies/%${escaped.slice(1, 2)}`, 'legacy'],
        [`/oauth2/${escaped}/v1/token`, 'oauth'],
        [`/oauth2/default/v1/token?${escaped}=${value}`, 'oauth'],
      ];
      const basic = basicAuthorization(client.clientId, client.clientSecret);
      for (const [target, family] of targets) {
        const request =
          family !== 'oauth'
            ? httpRequest('GET', target, [['authorization', `Bearer ${token}`]])
            : httpRequest('POST', target, [['authorization', basic], ['content-type', FORM_CONTENT_TYPE]], 'grant_type=client_credentials');
        const res = await rawRequest(t.url, request);
        if (res.status === 200) continue; // a garbage parameter name in the token request's query is ignored
        expectDocumentedError(res, family);
      }
    }
  });

  it('a request line that is not HTTP at all', async () => {
    for (const [request, family] of [
      ['GARBAGE\r\n\r\n', 'api'],
      ['GET /api/v2/sessionResults HTTP/9.9\r\n\r\n', 'api'],
      ['POST /oauth2/default/v1/token HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 'oauth'],
      ['POST /oauth2/default/v1/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n', 'oauth'],
    ] as const) {
      const res = await rawRequest(t.url, request);
      expectDocumentedError(res, family);
    }
  });
});

/** Signs by hand (RS256, our key), for headers a JOSE library refuses to produce. */
function signWithOurKey(header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const input = assembleJws(header, payload, '').slice(0, -1);
  return `${input}.${sign('sha256', Buffer.from(input), t.runtime.keys.signingKey().privateKey).toString('base64url')}`;
}

function publicPart(jwk: JWK): JWK {
  return { kty: jwk.kty, n: jwk.n, e: jwk.e };
}
