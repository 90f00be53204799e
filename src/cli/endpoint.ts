import { openAsBlob } from 'node:fs';
import type { Command } from 'commander';
import type { Runtime } from '../runtime.js';
import type { Actor } from '../store/store.js';
import { withRuntime } from './context.js';
import { CliError, usageError } from './output.js';

/**
 * Hydra's model: with `--endpoint URL` (or RESULTS_API_ENDPOINT) a command acts through the
 * admin API instead of opening the database, authenticated by an admin API client
 * (`--admin-client-id`/`--admin-client-secret`, or RESULTS_API_ADMIN_CLIENT_ID and
 * RESULTS_API_ADMIN_CLIENT_SECRET, which keep the secret out of the process list). The admin
 * API answers with the same documents the command prints with --json, so the output is the same.
 */
export interface EndpointOptions {
  endpoint?: string;
  adminClientId?: string;
  adminClientSecret?: string;
}

export const ENDPOINT_OPTION = ['--endpoint <url>', 'act through the admin API at this URL instead of DATABASE_URL (or RESULTS_API_ENDPOINT)'] as const;
export const ADMIN_CLIENT_ID_OPTION = ['--admin-client-id <id>', 'admin API client id, with --endpoint (or RESULTS_API_ADMIN_CLIENT_ID)'] as const;
export const ADMIN_CLIENT_SECRET_OPTION = [
  '--admin-client-secret <secret>',
  'admin API client secret, with --endpoint (or RESULTS_API_ADMIN_CLIENT_SECRET)',
] as const;

/** Adds the endpoint options to a command that can act through the admin API. */
export function endpointOptions(command: Command): Command {
  return command.option(...ENDPOINT_OPTION).option(...ADMIN_CLIENT_ID_OPTION).option(...ADMIN_CLIENT_SECRET_OPTION);
}

export interface RemoteCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path and query under the endpoint, e.g. /admin/api/users. */
  path: string;
  body?: unknown;
  /** Sent as multipart/form-data with this one file part instead of a JSON body. */
  file?: { path: string; name: string };
}

/** A request gets this long (an upload ten times as long); no command waits forever. */
const REQUEST_TIMEOUT_MS = 30_000;
const UPLOAD_TIMEOUT_MS = 10 * REQUEST_TIMEOUT_MS;

/** Makes one admin API request with the command's token; resolves to the answer's JSON. */
export type AdminApiCall = (call: RemoteCall) => Promise<unknown>;

/**
 * Runs `local` on the database, or `remote` through the admin API when an endpoint is given:
 * one request, or several made through the given call (a workspace named by name is looked up first).
 */
export async function perform<T>(
  options: EndpointOptions,
  local: (rt: Runtime, by: Actor) => Promise<T>,
  remote: RemoteCall | ((api: AdminApiCall) => Promise<unknown>),
): Promise<T> {
  if (!endpointOf(options)) return withRuntime(local);
  return callEndpoint<T>(options, remote);
}

/** The admin API's URL when the command is to act through it, else undefined. */
export const endpointOf = (options: EndpointOptions): string | undefined => options.endpoint ?? process.env.RESULTS_API_ENDPOINT;

/** Acts through the admin API (the endpoint must be set). */
export async function callEndpoint<T>(options: EndpointOptions, remote: RemoteCall | ((api: AdminApiCall) => Promise<unknown>)): Promise<T> {
  const base = endpointUrl(endpointOf(options)!);
  const token = await adminToken(base, options);
  const api: AdminApiCall = (one) => call(base, one, token);
  return (await (typeof remote === 'function' ? remote(api) : api(remote))) as T;
}

function endpointUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`--endpoint must be an http(s) URL such as http://127.0.0.1:8081 (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--endpoint must be an http(s) URL (got "${raw}")`);
  return url.href.replace(/\/+$/, '');
}

async function send(url: string, init: RequestInit, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new CliError(`the admin API at ${new URL(url).origin} did not answer: ${networkCause(err)}`);
  }
}

/** fetch's TypeError hides the reason (ECONNREFUSED...) in its cause, or in the first of several. */
function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; errors?: { code?: string }[]; message?: string } }).cause;
  if ((err as Error).name === 'TimeoutError') return 'no answer in time';
  return cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (err as Error).message;
}

async function adminToken(base: string, options: EndpointOptions): Promise<string> {
  const clientId = options.adminClientId ?? process.env.RESULTS_API_ADMIN_CLIENT_ID;
  const clientSecret = options.adminClientSecret ?? process.env.RESULTS_API_ADMIN_CLIENT_SECRET;
  if (!clientId || !clientSecret) {
    throw usageError('--endpoint needs an admin API client: --admin-client-id and --admin-client-secret (or RESULTS_API_ADMIN_CLIENT_ID and RESULTS_API_ADMIN_CLIENT_SECRET)');
  }
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64');
  const res = await send(`${base}/admin/oauth2/v1/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: 'grant_type=client_credentials',
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; error_description?: string };
  if (!res.ok || !body.access_token) throw new CliError(`the admin API refused the admin client: ${body.error_description ?? `HTTP ${res.status}`}`);
  return body.access_token;
}

async function call(base: string, remote: RemoteCall, token: string): Promise<unknown> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
  let body: RequestInit['body'];
  if (remote.file) {
    const form = new FormData();
    form.append('file', await openAsBlob(remote.file.path), remote.file.name);
    body = form;
  } else if (remote.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(remote.body);
  }
  const res = await send(`${base}${remote.path}`, { method: remote.method, headers, ...(body === undefined ? {} : { body }) }, remote.file ? UPLOAD_TIMEOUT_MS : REQUEST_TIMEOUT_MS);
  const text = await res.text();
  const answer = text === '' ? null : (JSON.parse(text) as unknown);
  if (!res.ok) {
    const problem = answer as { detail?: string; errors?: string[] } | null;
    throw new CliError(problem?.detail ?? `the admin API answered HTTP ${res.status}`, 1, problem?.errors ?? []);
  }
  return answer;
}
