import type { Config } from '../config.js';
import { usageError } from './output.js';

/**
 * Where `demo`'s commands reach the running server, and whether a server of this deployment
 * answers there: the printed commands must work when pasted, whatever PORT, HOST or
 * PUBLIC_URL the server was started with.
 */

export interface DemoUrls {
  /** `{auth_url}`: the token endpoints. */
  authUrl: string;
  /** `{base_url}`: the Results API. */
  baseUrl: string;
}

/** Addresses at which a server listens on every interface or on loopback: localhost reaches it. */
const LOCAL_HOSTS = new Set(['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost']);

/**
 * `--url` when given (the address the server logged, e.g. http://127.0.0.1:9000); else the
 * configured {auth_url} and {base_url}. Their default, `http://localhost:<PORT>`, reaches a
 * server listening on a loopback or wildcard address; a server bound to one other address
 * (HOST) is reached at that address.
 */
export function demoUrls(config: Config, url: string | undefined): DemoUrls {
  if (url !== undefined) {
    const parsed = parseServerUrl(url);
    return { authUrl: parsed, baseUrl: parsed };
  }
  const defaulted = config.publicUrl === `http://localhost:${config.port}` && config.authUrl === config.publicUrl && config.baseUrl === config.publicUrl;
  if (defaulted && !LOCAL_HOSTS.has(config.host) && !config.host.startsWith('127.')) {
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const hostUrl = `http://${host}:${config.port}`;
    return { authUrl: hostUrl, baseUrl: hostUrl };
  }
  return { authUrl: config.authUrl, baseUrl: config.baseUrl };
}

/** `--url`: an absolute http(s) URL, without query or fragment; no trailing slash. */
export function parseServerUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`--url must be the server's absolute http(s) URL, e.g. http://127.0.0.1:8080 (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--url must be an http(s) URL (got "${raw}")`);
  if (url.search || url.hash || url.username || url.password) {
    throw usageError(`--url must not carry credentials, a query or a fragment (got "${raw}")`);
  }
  return url.href.replace(/\/+$/, '');
}

const CHECK_TIMEOUT_MS = 3000;

/**
 * Asks `{auth_url}` for the custom authorization server's metadata: a server of this
 * deployment (the same database) knows the server id. Returns what is wrong, or undefined when
 * the server answers as expected. Never throws, never waits longer than a few seconds.
 */
export async function checkDemoServer(urls: DemoUrls, authorizationServerId: string): Promise<string | undefined> {
  const metadataUrl = `${urls.authUrl}/oauth2/${authorizationServerId}/.well-known/oauth-authorization-server`;
  const metadata = await get(metadataUrl);
  if (typeof metadata === 'string') return `no server answers at ${urls.authUrl} (${metadata})`;
  if (metadata.status === 404) {
    return `the server at ${urls.authUrl} belongs to another deployment: it has no authorization server ${authorizationServerId} (run demo with the server's DATABASE_URL)`;
  }
  if (metadata.status !== 200) return `the server at ${urls.authUrl} answered ${metadata.status} to ${metadataUrl}`;
  const issuer = (metadata.body as { issuer?: unknown } | undefined)?.issuer;
  if (typeof issuer !== 'string' || !issuer.endsWith(`/oauth2/${authorizationServerId}`)) {
    return `what answers at ${urls.authUrl} is not a results-api authorization server (no issuer ending in /oauth2/${authorizationServerId})`;
  }
  if (urls.baseUrl !== urls.authUrl) {
    const health = await get(`${urls.baseUrl}/healthz`);
    if (typeof health === 'string') return `no server answers at ${urls.baseUrl} (${health})`;
    if (health.status !== 200) return `the server at ${urls.baseUrl} answered ${health.status} to /healthz`;
  }
  return undefined;
}

/** The status and JSON body (if any), or why there is no answer. */
async function get(url: string): Promise<{ status: number; body: unknown } | string> {
  try {
    const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
    const body: unknown = await res.json().catch(() => undefined);
    return { status: res.status, body };
  } catch (err) {
    return failureReason(err);
  }
}

function failureReason(err: unknown): string {
  if (err instanceof DOMException && err.name === 'TimeoutError') return `no answer within ${CHECK_TIMEOUT_MS / 1000} s`;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}
