// @ts-check
/**
 * A user's script written against the real contract with stock tools only (as
 * page-completed-sessions.mjs, whose sign-in it shares in spirit): it calls every operation of
 * both real documents, finding each id it needs through the product itself: tests through v1,
 * sessions through v2, a session's clip through its clip list, and the v1 highlight reel by the
 * token the v2 reel list shows (`highlightReelToken`, which the real document does not name, so
 * it is read as plain JSON). Output: `{ statuses: { "<operation>": <status> } }` on stdout.
 */
import process from 'node:process';
import { URL } from 'node:url';
import * as oauth from 'oauth4webapi';
import createClient from 'openapi-fetch';

/** @typedef {import('./real-results-v2.js').paths} ResultsPaths */
/** @typedef {import('./real-legacy-v1.js').paths} LegacyPaths */

const env = (/** @type {string} */ name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const insecure = { [oauth.allowInsecureRequests]: env('ISSUER').startsWith('http://127.0.0.1') };

async function signIn() {
  const issuer = new URL(env('ISSUER'));
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  const client = { client_id: env('CLIENT_ID') };
  const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost(env('CLIENT_SECRET')), { scope: env('SCOPE') }, insecure);
  return (await oauth.processClientCredentialsResponse(as, client, response)).access_token;
}

const headers = { authorization: `Bearer ${await signIn()}` };
/** @type {import('openapi-fetch').Client<ResultsPaths>} */
const api = createClient({ baseUrl: env('BASE_URL'), headers });
/** @type {import('openapi-fetch').Client<LegacyPaths>} */
const legacy = createClient({ baseUrl: `${env('BASE_URL')}/usertesting/api`, headers });
/** @type {Record<string, number>} */
const statuses = {};
/**
 * @template T
 * @param {string} name
 * @param {Promise<{ data?: T; response: Response }>} call
 */
const record = async (name, call) => {
  const { data, response } = await call;
  statuses[name] = response.status;
  return data;
};

const workspaces = (await record('GET /v1/workspaces', legacy.GET('/v1/workspaces'))) ?? [];
const workspaceUuid = workspaces[0]?.uuid ?? '';
const studies = (await record('GET /v1/workspaces/{workspaceUuid}', legacy.GET('/v1/workspaces/{workspaceUuid}', { params: { path: { workspaceUuid } } }))) ?? [];
// The study with highlight reels: the v2 reel list of each STUDYV2 study, until one has some.
let testId = '';
/** @type {Record<string, unknown> | undefined} */
let reel;
for (const study of studies) {
  if (study.type !== 'STUDYV2' || !study.uuid) continue;
  const { data } = await api.GET('/api/v2/testResults/{testId}/highlightreels', { params: { path: { testId: study.uuid } } });
  /** @type {Record<string, unknown>[]} */
  const reels = data?.reels ?? [];
  if (reels.length > 0) {
    testId = study.uuid;
    reel = reels[0];
    break;
  }
}
await record('GET /api/v2/testResults/{testId}/highlightreels', api.GET('/api/v2/testResults/{testId}/highlightreels', { params: { path: { testId } } }));
const reelId = String(reel?.uuid ?? '');
const highlightReelToken = String(reel?.highlightReelToken ?? '');
await record('GET /v1/studies/{studyUuid}', legacy.GET('/v1/studies/{studyUuid}', { params: { path: { studyUuid: testId } } }));
await record('GET /v1/studies/{studyUuid}/completed-sessions', legacy.GET('/v1/studies/{studyUuid}/completed-sessions', { params: { path: { studyUuid: testId } } }));
await record('GET /api/v2/testResults/{testId}/qxScores', api.GET('/api/v2/testResults/{testId}/qxScores', { params: { path: { testId } } }));
await record('GET /api/v2/testResults/{testId}/highlightreels/{reelId}', api.GET('/api/v2/testResults/{testId}/highlightreels/{reelId}', { params: { path: { testId, reelId } } }));
const reelV1 = await record('GET /v1/highlightreel/{highlightReelToken}', legacy.GET('/v1/highlightreel/{highlightReelToken}', { params: { path: { highlightReelToken } } }));

// The session with clips: the completed sessions, each one's clip list until one has clips.
const page = await record('GET /api/v2/sessionResults', api.GET('/api/v2/sessionResults', { params: { query: { testId, limit: 500 } } }));
let sessionId = '';
let clipUuid = '';
for (const session of page?.sessions ?? []) {
  const { data } = await api.GET('/api/v2/sessionResults/{sessionId}/clips', { params: { path: { sessionId: session.sessionId } } });
  const first = data?.clips?.[0];
  if (first?.uuid) {
    sessionId = session.sessionId;
    clipUuid = first.uuid;
    break;
  }
}
await record('GET /api/v2/sessionResults/{sessionId}/clips', api.GET('/api/v2/sessionResults/{sessionId}/clips', { params: { path: { sessionId } } }));
await record('GET /api/v2/sessionResults/{sessionId}/clips/{clipUuid}', api.GET('/api/v2/sessionResults/{sessionId}/clips/{clipUuid}', { params: { path: { sessionId, clipUuid } } }));
await record('GET /api/v3/sessionResults/{sessionId}', api.GET('/api/v3/sessionResults/{sessionId}', { params: { path: { sessionId } } }));
await record('GET /api/v2/sessionResults/{sessionId}/transcript', api.GET('/api/v2/sessionResults/{sessionId}/transcript', { params: { path: { sessionId } }, parseAs: 'text' }));
await record('GET /api/v2/sessionResults/{sessionId}/videoDownloadUrl', api.GET('/api/v2/sessionResults/{sessionId}/videoDownloadUrl', { params: { path: { sessionId } } }));
await record('GET /v1/session/{sessionUuid}', legacy.GET('/v1/session/{sessionUuid}', { params: { path: { sessionUuid: sessionId } } }));
await record('GET /v1/clip/{clipUuid}', legacy.GET('/v1/clip/{clipUuid}', { params: { path: { clipUuid } } }));
process.stdout.write(`${JSON.stringify({ statuses, reelClips: reelV1?.clips?.totalCount ?? null })}\n`);
