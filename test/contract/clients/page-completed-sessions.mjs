// @ts-check
/**
 * A user's script as a new user writes it against the real contract, with stock tools only:
 * `oauth4webapi` signs in (RFC 8414 discovery, client-credentials grant) and `openapi-fetch`
 * calls the API through types `openapi-typescript` generated from the real documents (the
 * test generates `real-results-v2.d.ts` and `real-legacy-v1.d.ts` next to this file and
 * type-checks it before running it). Nothing here knows it talks to results-api rather than
 * the real service.
 *
 * Steps, each its own function so a step can be swapped: sign in, discover the tests to read
 * through Legacy v1 (workspaces, their studies, keep the STUDYV2 ones), page every completed
 * session of each through Results v2. Output: one JSON object on stdout,
 * `{ tests: [{ testId, totalCount, sessions: [...] }] }`.
 */
import process from 'node:process';
import { URL } from 'node:url';
import * as oauth from 'oauth4webapi';
import createClient from 'openapi-fetch';

/** @typedef {import('./real-results-v2.js').paths} ResultsPaths */
/** @typedef {import('./real-results-v2.js').components['schemas']['SessionSummaryResultItemDto']} SessionSummary */
/** @typedef {import('./real-legacy-v1.js').paths} LegacyPaths */

const env = (/** @type {string} */ name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

/** Plain http is for this test's loopback server only; the real service is https. */
const insecure = { [oauth.allowInsecureRequests]: env('ISSUER').startsWith('http://127.0.0.1') };

/** A token from the authorization server, found by its metadata, for the client's credentials. */
async function signIn() {
  const issuer = new URL(env('ISSUER'));
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  const client = { client_id: env('CLIENT_ID') };
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    client,
    oauth.ClientSecretPost(env('CLIENT_SECRET')),
    { scope: env('SCOPE') },
    insecure,
  );
  const token = await oauth.processClientCredentialsResponse(as, client, response);
  return token.access_token;
}

/**
 * The tests to read, found as the real documents say: every workspace of the caller, each
 * workspace's studies page by page (the next page is the one after the last study's cursor,
 * until a page is empty), keeping the studies of the v2 format, whose uuid is a v2 testId.
 * @param {import('openapi-fetch').Client<LegacyPaths>} legacy
 */
async function testsToRead(legacy) {
  const { data: workspaces, error, response } = await legacy.GET('/v1/workspaces');
  if (!workspaces) throw new Error(`GET /v1/workspaces answered ${response.status}: ${JSON.stringify(error)}`);
  /** @type {string[]} */
  const testIds = [];
  for (const workspace of workspaces) {
    if (!workspace.uuid) continue;
    /** @type {string | undefined} */
    let after;
    for (;;) {
      const page = await legacy.GET('/v1/workspaces/{workspaceUuid}', { params: { path: { workspaceUuid: workspace.uuid }, query: { after } } });
      if (!page.data) throw new Error(`GET /v1/workspaces/{workspaceUuid} answered ${page.response.status}: ${JSON.stringify(page.error)}`);
      for (const study of page.data) if (study.type === 'STUDYV2' && study.uuid) testIds.push(study.uuid);
      after = page.data.at(-1)?.cursor;
      if (!after) break;
    }
  }
  return testIds;
}

/**
 * Every completed session of a test, page by page with limit/offset, as the real contract's
 * best practice says: the number of pages follows from totalCount.
 * @param {import('openapi-fetch').Client<ResultsPaths>} api
 * @param {string} testId
 */
async function completedSessions(api, testId) {
  const limit = Number(env('PAGE_SIZE'));
  /** @type {SessionSummary[]} */
  const sessions = [];
  let totalCount = 0;
  for (let offset = 0; offset === 0 || offset < totalCount; offset += limit) {
    const { data, error, response } = await api.GET('/api/v2/sessionResults', { params: { query: { testId, limit, offset } } });
    if (!data) throw new Error(`GET /api/v2/sessionResults answered ${response.status}: ${JSON.stringify(error)}`);
    totalCount = data.meta.pagination.totalCount;
    sessions.push(...data.sessions);
    if (data.sessions.length === 0) break;
  }
  return { testId, totalCount, sessions };
}

const token = await signIn();
const headers = { authorization: `Bearer ${token}` };
/** @type {import('openapi-fetch').Client<ResultsPaths>} */
const api = createClient({ baseUrl: env('BASE_URL'), headers });
/** The v1 document's server is the host's `/usertesting/api`. @type {import('openapi-fetch').Client<LegacyPaths>} */
const legacy = createClient({ baseUrl: `${env('BASE_URL')}/usertesting/api`, headers });
const tests = [];
for (const testId of await testsToRead(legacy)) tests.push(await completedSessions(api, testId));
process.stdout.write(`${JSON.stringify({ tests })}\n`);
