import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { FORM_CONTENT_TYPE } from '../helpers/token-operations.js';
import { basicAuthorization, mintToken, serverOf } from '../helpers/tokens.js';

/**
 * Property tests over what a client controls: query strings, headers and form bodies of
 * every endpoint. Whatever arrives, the answer is never a 5xx, and every error has the
 * documented shape: RFC 9457 problem details on the API, RFC 6749 §5.2 JSON under /oauth2.
 * Each property runs a bounded number of requests so the file stays well under a minute.
 */

const RUNS = 200;
let t: TestApp;
let s: Seeded;
/** For the API: never sent to the revocation endpoint, so it stays valid throughout. */
let apiToken: string;
/** For the OAuth endpoints: the fuzzer may revoke it, which is fine there. */
let oauthToken: string;

beforeAll(async () => {
  t = await startTestApp({
    env: { RATE_LIMIT_API: '1000000', RATE_LIMIT_TOKEN_ADDRESS: '1000000', RATE_LIMIT_TOKEN_CLIENT: '1000000' },
  });
  s = await seed(t.runtime, { sessions: 3 });
  apiToken = await mintToken(t, s, 'B');
  oauthToken = await mintToken(t, s, 'A');
});
afterAll(() => t.close());

// --- shapes -------------------------------------------------------------------------------------

async function expectApiAnswer(res: Response, allowed: number[]): Promise<void> {
  expect(res.status).toBeLessThan(500);
  expect(allowed).toContain(res.status);
  const text = await res.text();
  if (res.status < 400) return;
  const body = JSON.parse(text) as Record<string, unknown>;
  if (/^\/(usertesting\/api\/)?v1\//.test(new URL(res.url).pathname)) {
    // The Legacy (v1) family's own error body.
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(body).sort()).toEqual(['errorCode', 'errorMessage']);
    expect(body.errorCode).toMatch(/^[A-Z_]+$/);
    expect(typeof body.errorMessage).toBe('string');
    return;
  }
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(Object.keys(body).sort()).toEqual(['detail', 'status', 'title', 'type']);
  expect(body.status).toBe(res.status);
  expect(body.type).toMatch(/^urn:results-api:problem:[a-z-]+$/);
  expect(typeof body.title === 'string' && typeof body.detail === 'string').toBe(true);
}

async function expectOAuthAnswer(res: Response, endpoint: Endpoint): Promise<void> {
  expect(res.status).toBeLessThan(500);
  const text = await res.text();
  if (res.status === 200) {
    if (endpoint === 'revoke') expect(text).toBe('');
    else if (endpoint === 'introspect') expect(typeof (JSON.parse(text) as { active: unknown }).active).toBe('boolean');
    else expect(Object.keys(JSON.parse(text) as object).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    return;
  }
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  expect(body.error).toMatch(/^[a-z_]+$/);
  expect(typeof body.error_description).toBe('string');
}

type Endpoint = 'token' | 'introspect' | 'revoke';
const endpointArb = fc.constantFrom<Endpoint>('token', 'introspect', 'revoke');
const formArb = fc.constantFrom<'A' | 'B'>('A', 'B');
const endpointUrl = (form: 'A' | 'B', endpoint: Endpoint) => `${t.url}/oauth2/${serverOf(t, form).id}/v1/${endpoint}`;

// --- arbitraries --------------------------------------------------------------------------------

const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** Percent-encodes the UTF-8 bytes of anything but unreserved characters (lone surrogates become U+FFFD). */
const percentEncode = (value: string): string =>
  [...Buffer.from(value, 'utf8')]
    .map((b) => (UNRESERVED.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');

const text = fc.string({ unit: 'binary', maxLength: 40 });
/** Escapes that decode to nothing valid: truncated, non-hex, overlong UTF-8, NUL, lone continuation bytes. */
const brokenEscape = fc.constantFrom('%', '%z', '%zz', '%E0%A4%A', '%C0%AF', '%00', '%80', '%FF%FE', '%ED%A0%80', '%%', '%2');
/** A piece of a URL as a client might write it: names we know, encoded text, raw text, broken escapes. */
const urlPiece = (known: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 3, arbitrary: known },
    { weight: 2, arbitrary: text.map(percentEncode) },
    { weight: 1, arbitrary: text.filter((v) => !/[#?&=/\\]/.test(v)) }, // raw: fetch encodes what it must
    { weight: 1, arbitrary: fc.tuple(text.map(percentEncode), brokenEscape).map(([a, b]) => a + b) },
  );

const pagingValue = fc.oneof(
  fc.integer({ min: -3, max: 10_050 }).map(String),
  fc.constantFrom('', '0', '1', '25', '500', '501', '1e2', '0x10', ' 5', '5 ', '1.5', '-0', '+1', '00001', 'NaN', 'Infinity'),
  fc.constant('9'.repeat(30)),
);

/** Header values fetch can send: any latin1 byte but controls (the attack tests send those raw). */
const latin1Text = fc.string({
  unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});

/** A copy of `token` with one character replaced, removed or added. */
const mutated = (token: () => string) =>
  fc.tuple(fc.nat(), fc.constantFrom('replace', 'remove', 'insert'), fc.constantFrom('A', '_', '-', '.', '=', '+', '/', ' ', 'é')).map(
    ([at, how, c]) => {
      const value = token();
      const i = at % value.length;
      if (how === 'remove') return value.slice(0, i) + value.slice(i + 1);
      if (how === 'insert') return value.slice(0, i) + c + value.slice(i);
      return value.slice(0, i) + (value[i] === c ? 'B' : c) + value.slice(i + 1);
    },
  );

// --- query strings ------------------------------------------------------------------------------

describe('query strings of the API', () => {
  const paths = () => [
    '/api/v2/sessionResults',
    '/api/v2/sessionResults/',
    '/v2/sessionResults',
    `/usertesting/api/v1/workspaces/${s.workspaceId}`,
    `/v1/workspaces/${s.workspaceId}`,
    `/v1/studies/${s.testId}/completed-sessions`,
  ];
  const name = urlPiece(fc.constantFrom('testId', 'limit', 'offset', 'rowsPerPage', 'pageNumber', 'after', 'before'));
  const value = fc.oneof(
    { weight: 2, arbitrary: fc.constant('TEST_ID') },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 3, arbitrary: pagingValue.map(percentEncode) },
    { weight: 2, arbitrary: urlPiece(fc.constant('1')) },
  );
  const query = fc.array(fc.tuple(name, value, fc.constantFrom('=', '', '==')), { maxLength: 6 }).map((pairs) =>
    pairs.map(([n, v, eq]) => `${n}${eq}${eq ? v : ''}`).join('&'),
  );

  it('never a 5xx; 200, 400 or 404, errors in the family body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), query, fc.boolean(), async (pathIndex, q, extraAmpersands) => {
        const list = paths();
        const path = list[pathIndex % list.length]!;
        const search = (extraAmpersands ? `&${q}&&` : q).replaceAll('TEST_ID', s.testId);
        const res = await fetch(`${t.url}${path}?${search}`, { headers: { authorization: `Bearer ${apiToken}` } });
        await expectApiAnswer(res, [200, 400, 404]);
      }),
      { numRuns: RUNS },
    );
  });

  it('the uuid path segment of the Legacy family: never a 5xx; 200, 400 or 404', async () => {
    const segment = urlPiece(fc.oneof(fc.uuid(), fc.constant(s.workspaceId)));
    await fc.assert(
      fc.asyncProperty(segment, fc.constantFrom('/usertesting/api/v1/workspaces/', '/v1/workspaces/', '/v1/studies/', '/usertesting/api/v1/session/'), async (id, prefix) => {
        if (id === '' || id === '.' || id === '..') return; // a different route, not this parameter
        const res = await fetch(`${t.url}${prefix}${id}`, { headers: { token: apiToken } });
        await expectApiAnswer(res, [200, 400, 404]);
      }),
      { numRuns: RUNS },
    );
  });
});

// --- headers ------------------------------------------------------------------------------------

describe('headers', () => {
  const tokenValue = fc.oneof(
    { weight: 1, arbitrary: fc.constant('VALID') },
    { weight: 3, arbitrary: mutated(() => apiToken) },
    { weight: 2, arbitrary: latin1Text },
  );
  const authorization = fc.oneof(
    tokenValue.map((v) => `Bearer ${v}`),
    fc
      .tuple(fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Token', 'DPoP', ''), fc.constantFrom(' ', '  ', '\t', ''), tokenValue)
      .map(([scheme, sep, v]) => `${scheme}${sep}${v}`),
    latin1Text,
  );
  const contentType = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(FORM_CONTENT_TYPE, `${FORM_CONTENT_TYPE}; charset=utf-8`) },
    { weight: 1, arbitrary: fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x', '') },
    { weight: 1, arbitrary: latin1Text },
  );
  const apiHeaders = fc.record(
    { authorization, token: tokenValue, 'content-type': contentType },
    { requiredKeys: [] },
  );

  const apiPath = fc.constantFrom('/api/v2/sessionResults', '/v2/sessionResults', '/usertesting/api/v1/workspaces');

  it('authorization, token and content-type on the API: never a 5xx, errors in the family body', async () => {
    await fc.assert(
      fc.asyncProperty(apiHeaders, apiPath, async (headers, path) => {
        const sent: Record<string, string> = {};
        for (const [k, v] of Object.entries(headers)) sent[k] = v.replace(/VALID/g, apiToken);
        const res = await fetch(`${t.url}${path}?testId=${s.testId}`, { headers: sent });
        await expectApiAnswer(res, [200, 400, 401, 403]);
      }),
      { numRuns: RUNS },
    );
  });

  it('authorization, token and content-type on every OAuth endpoint: never a 5xx, errors in the OAuth shape', async () => {
    const basic = fc.oneof(
      fc.constant(() => basicAuthorization(s.clientId, s.clientSecret)),
      latin1Text.map((v) => () => `Basic ${Buffer.from(v, 'latin1').toString('base64')}`),
      latin1Text.map((v) => () => `Basic ${v}`),
      authorization.map((v) => () => v),
    );
    const headers = fc.record({ authorization: basic, token: tokenValue, 'content-type': contentType }, { requiredKeys: [] });
    await fc.assert(
      fc.asyncProperty(endpointArb, formArb, headers, fc.boolean(), async (endpoint, form, h, withFormCredentials) => {
        const sent: Record<string, string> = {};
        if (h.authorization) sent.authorization = h.authorization();
        if (h.token !== undefined) sent.token = h.token.replace(/VALID/g, apiToken);
        if (h['content-type'] !== undefined) sent['content-type'] = h['content-type'];
        const body = new URLSearchParams({ grant_type: 'client_credentials', token: 'not-a-token' });
        if (withFormCredentials) {
          body.set('client_id', s.clientId);
          body.set('client_secret', s.clientSecret);
        }
        const res = await fetch(endpointUrl(form, endpoint), { method: 'POST', headers: sent, body: body.toString() });
        await expectOAuthAnswer(res, endpoint);
      }),
      { numRuns: RUNS },
    );
  });
});

// --- form bodies --------------------------------------------------------------------------------

describe('form bodies of token, introspect and revoke on both servers', () => {
  const fuzzValue = fc.oneof(
    { weight: 1, arbitrary: mutated(() => oauthToken).map(percentEncode) },
    { weight: 3, arbitrary: urlPiece(fc.constantFrom('', 'openid', 'refresh_token', 'password', 'access_token')) },
    { weight: 1, arbitrary: fc.string({ maxLength: 2000 }).map(percentEncode) },
  );
  /** Each known field: usually valid, sometimes fuzzed, sometimes absent or repeated. */
  const field = (valid: string) => fc.oneof({ weight: 4, arbitrary: fc.constant(valid) }, { weight: 2, arbitrary: fuzzValue });
  const known = fc.record(
    {
      grant_type: field('client_credentials'),
      scope: field('SCOPE'),
      client_id: field('CLIENT_ID'),
      client_secret: field('CLIENT_SECRET'),
      token: field('TOKEN'),
      token_type_hint: field('access_token'),
    },
    { requiredKeys: [] },
  );
  const extraName = urlPiece(fc.constantFrom('grant_type', 'client_id', 'token', 'x'));
  const extra = fc.array(fc.tuple(extraName, fc.constantFrom('=', '', '=='), fuzzValue), { maxLength: 3 });
  const body = fc.tuple(known, extra).map(([fields, more]) =>
    [...Object.entries(fields).map(([n, v]) => `${n}=${v}`), ...more.map(([n, eq, v]) => `${n}${eq}${eq ? v : ''}`)].join('&'),
  );
  const contentType = fc.oneof(
    { weight: 5, arbitrary: fc.constant(FORM_CONTENT_TYPE) },
    { weight: 1, arbitrary: fc.constantFrom(`${FORM_CONTENT_TYPE};charset=latin1`, 'application/json', 'text/plain', '') },
  );

  it('never a 5xx; successes are exactly the documented bodies, errors are {error, error_description}', async () => {
    await fc.assert(
      fc.asyncProperty(endpointArb, formArb, body, contentType, async (endpoint, form, raw, type) => {
        const sent = raw
          .replaceAll('SCOPE', serverOf(t, form).scope)
          .replaceAll('CLIENT_ID', s.clientId)
          .replaceAll('CLIENT_SECRET', encodeURIComponent(s.clientSecret))
          .replaceAll('TOKEN', oauthToken);
        const res = await fetch(endpointUrl(form, endpoint), {
          method: 'POST',
          // A string body would get text/plain from fetch; bytes get no content type at all.
          headers: type === '' ? {} : { 'content-type': type },
          body: type === '' ? Buffer.from(sent) : sent,
        });
        await expectOAuthAnswer(res, endpoint);
      }),
      { numRuns: RUNS },
    );
  });
});
