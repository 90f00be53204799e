/**
 * The processes a benchmark drives: the production build (`results-api serve`, one per
 * database) and the two references, each on a free loopback port, plus the requests that
 * prove each one answers what it should before it is measured.
 */
import { Buffer } from 'node:buffer';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import process from 'node:process';
import { URLSearchParams } from 'node:url';
import { completedCount } from './data.mjs';
import { expectedPage } from './seed.mjs';
import { freePort } from './free-port.mjs';
import { startNode, waitForHttp } from './processes.mjs';

export const AUTH_SERVER_ID = 'ausBench000000000001';
const SCOPE = 'studies:read';
const NO_LIMIT = '1000000000';
const MEASURE_CHANGING = /^(DATABASE_URL|REDIS_URL|PORT|HOST|PUBLIC_URL|AUTH_URL|BASE_URL|AUTH_SERVER_|TOKEN_TTL_SECONDS|TOKEN_REUSE_SECONDS|RATE_LIMIT_|LOG_LEVEL)/;

/** The environment of every process we start: ours, minus what would change what is measured. */
export function childEnv(logLevel, overrides = {}) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (MEASURE_CHANGING.test(key)) delete env[key];
  return {
    ...env,
    NODE_ENV: 'production',
    LOG_LEVEL: logLevel,
    AUTH_SERVER_ID,
    // One client hammering one server: per-client limits would turn this into a 429 benchmark.
    RATE_LIMIT_API: NO_LIMIT,
    RATE_LIMIT_TOKEN_CLIENT: NO_LIMIT,
    RATE_LIMIT_TOKEN_ADDRESS: NO_LIMIT,
    ...overrides,
  };
}

/** One request, with the raw response: status, headers as sent (name case kept), body bytes. */
export function rawRequest(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const pairs = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
        resolve({ status: res.statusCode, headers: pairs, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.setTimeout(15_000, () => req.destroy(new Error(`timed out: ${method} ${url}`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The client-credentials request both token endpoints get (RFC 6749 §4.4, client_secret_post);
 * with `resource`, a token bound to that resource (RFC 8707: the MCP endpoint's tokens).
 */
export function tokenRequest(path, credential, resource) {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    scope: SCOPE,
    client_id: credential.clientId,
    client_secret: credential.clientSecret,
    ...(resource ? { resource } : {}),
  }).toString();
  return { method: 'POST', path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body };
}

export const ourTokenPath = `/oauth2/${AUTH_SERVER_ID}/v1/token`;

/**
 * token.refresh: refresh_token grants by a confidential app (HTTP Basic). A refresh token works
 * once, so each request takes a ready token and its answer hands back the next: `connections`
 * chains, taken from `reserve` for this run (a run's last answers are never read, so its
 * chains are not reused).
 */
export function refreshRequest(path, app, reserve, connections) {
  const ready = reserve.splice(0, connections);
  if (ready.length < connections) throw new Error('token.refresh: the seeded refresh tokens are used up');
  const authorization = `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`;
  return {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
    body: 'grant_type=refresh_token',
    requests: [
      {
        setupRequest: (request) => {
          const token = ready.shift();
          return token ? { ...request, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString() } : request;
        },
        onResponse: (status, body) => {
          if (status === 200) ready.push(JSON.parse(body).refresh_token);
        },
      },
    ],
  };
}

/**
 * token.code: authorization_code grants by a confidential app (HTTP Basic) with PKCE: each
 * request exchanges the next of the seeded codes from `reserve` (a code works once), which
 * creates a grant and its first refresh token and signs an access token. When the codes run
 * out the request goes without one and is refused (a non-2xx the report shows).
 */
export function codeRequest(path, app, reserve, { redirectUri, codeVerifier }) {
  const authorization = `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`;
  const form = (code) => new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: codeVerifier }).toString();
  return {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
    body: form('none'),
    requests: [{ setupRequest: (request) => ({ ...request, body: form(reserve.shift() ?? 'none') }) }],
  };
}

export const listPath = (testId, query) => `/api/v2/sessionResults?testId=${testId}&${query}`;

/** A token from `server`, which also proves its token endpoint answers 200. */
export async function precheckToken(server, path, credential, resource) {
  const req = tokenRequest(path, credential, resource);
  const res = await rawRequest(server.url + req.path, req);
  const text = res.body.toString('utf8');
  if (res.status !== 200) throw new Error(`${server.name}: token request answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text).access_token;
}

/**
 * Fetches one page (of 25) the benchmark will read and compares it with the same page read by
 * plain SQL, and totalCount with what was seeded. Returns the raw response.
 */
export async function precheckPage(server, testId, offset, query) {
  const { target } = server;
  const path = listPath(testId, query);
  const res = await rawRequest(server.url + path, { headers: { authorization: `Bearer ${server.token}` } });
  const text = res.body.toString('utf8');
  if (res.status !== 200) throw new Error(`${server.name}: GET ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  const page = JSON.parse(text);
  const got = page.sessions.map((s) => s.sessionId);
  const expected = await expectedPage(target, testId, offset, 25);
  if (JSON.stringify(got) !== JSON.stringify(expected)) {
    throw new Error(
      `${server.name}: GET ${path} is not the page SQL reads ` +
        `(got ${got.length} sessions from ${got[0]}, expected ${expected.length} from ${expected[0]})`,
    );
  }
  const seeded = completedCount(target.counts[target.testIds.indexOf(testId)]);
  if (page.meta.pagination.totalCount !== seeded) {
    throw new Error(`${server.name}: totalCount ${page.meta.pagination.totalCount}, but ${seeded} completed sessions were seeded`);
  }
  return res;
}

/**
 * `results-api serve --workers N` of the build on `databaseUrl`, once it answers its discovery
 * document. N is explicit: the references are single processes, so by default are we. The
 * admin listener is on a free port unless `adminPort` names one (a scenario that calls it).
 */
export async function startServer(name, databaseUrl, { logDir, logLevel, cwd, cli, workers, adminListener = true, adminPort = 0, nodeArgs = [], env = {} }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const handle = startNode({
    name,
    script: cli,
    args: ['serve', '--workers', String(workers)],
    nodeArgs,
    // Port 0: the operations and admin listeners run as in production, on ports no other run holds.
    env: childEnv(logLevel, {
      ...env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      METRICS_PORT: '0',
      ADMIN_PORT: adminListener ? String(adminPort) : 'off',
    }),
    cwd,
    logDir,
  });
  await waitForHttp(handle, `${url}/oauth2/${AUTH_SERVER_ID}/.well-known/oauth-authorization-server`);
  return { name, handle, pid: handle.pid, url };
}

/** One of the reference servers in bench/, once it answers. */
export async function startReference(name, script, env, { logDir, cwd }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const handle = startNode({
    name,
    script: join(cwd, 'bench', script),
    env: { ...childEnv('warn'), ...env, PORT: String(port) },
    cwd,
    logDir,
  });
  await waitForHttp(handle, url);
  return { name, handle, pid: handle.pid, url };
}
