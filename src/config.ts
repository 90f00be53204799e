/**
 * The service's configuration: read once from the environment, validated, typed and frozen.
 * Nothing else in src/ reads process.env; everything receives a Config.
 */

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface RateLimitConfig {
  /** Requests per client per window on the Results API. */
  readonly apiPerWindow: number;
  /**
   * Failed client authentications per client id from one source address per window: a
   * stranger's guesses lock out only the stranger's address, never the client's owner.
   */
  readonly tokenFailuresPerClientAndAddress: number;
  /** Failed client authentications per client id from all addresses together per window (the ceiling). */
  readonly tokenFailuresPerClient: number;
  /** Token requests per source address per window, failed attempts included. */
  readonly tokenPerAddressPerWindow: number;
  readonly windowSeconds: number;
}

/** Where the operations listener serves /metrics (never on the public port). */
export interface MetricsListenerConfig {
  readonly host: string;
  /** 0: any free port (the address is logged). */
  readonly port: number;
}

/** Bounds on what one client's connections may hold (see limitConnectionsPerAddress). */
export interface ConnectionConfig {
  /** Time allowed to receive a request's headers. */
  readonly headersTimeoutSeconds: number;
  /** Time allowed to receive a whole request, headers and body (at least headersTimeoutSeconds). */
  readonly requestTimeoutSeconds: number;
  /** A connection with no bytes moving either way for this long is closed. */
  readonly idleTimeoutSeconds: number;
  /** How long an idle keep-alive connection waits for its next request. */
  readonly keepAliveTimeoutSeconds: number;
  /** Open connections per peer address, per server process; 0: no limit. */
  readonly maxPerAddress: number;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  /** `{auth_url}`: where /oauth2/<id>/... is served. */
  readonly authUrl: string;
  /** `{base_url}`: where /api/v2/... is served. */
  readonly baseUrl: string;
  readonly databaseUrl: string;
  readonly redisUrl: string | undefined;
  /** Before every Redis key and channel this deployment uses; undefined: derived from the database. */
  readonly redisKeyPrefix: string | undefined;
  /** The custom authorization server's id; when unset, one is generated once and persisted. */
  readonly authServerId: string | undefined;
  readonly authServerAudience: string;
  readonly tokenTtlSeconds: number;
  /**
   * How long a client that asks for a token again is handed the one it was just issued
   * (same server and scope) instead of a newly signed one; 0 signs every request.
   */
  readonly tokenReuseSeconds: number;
  readonly logLevel: LogLevel;
  /** `json`: one JSON object a line (for log collectors); `pretty`: readable lines (for a terminal). */
  readonly logFormat: LogFormat;
  readonly rateLimit: RateLimitConfig;
  readonly connections: ConnectionConfig;
  /**
   * Which proxies' X-Forwarded-For to believe: false (none), true (any), or a comma-separated
   * list of addresses/CIDRs.
   */
  readonly trustProxy: boolean | string;
  /** How long a rotated-out client secret keeps working, in seconds. */
  readonly secretRotationGraceSeconds: number;
  /** The operations listener for /metrics; undefined when METRICS_PORT=off. */
  readonly metrics: MetricsListenerConfig | undefined;
  /** Where session videos and their derived media are kept (MEDIA_URL). */
  readonly media: MediaConfig;
  /** Background jobs (clips, reels) this server process runs at once; 0: it runs none. */
  readonly jobConcurrency: number;
  /** How long a claimed job stays its runner's without a heartbeat: a killed process's job is picked up after this. */
  readonly jobLeaseSeconds: number;
  /** The admin listener (admin API and console); undefined when ADMIN_PORT=off. */
  readonly admin: AdminListenerConfig | undefined;
}

/** Where the admin API listens (loopback by default: never exposed by accident). */
export interface AdminListenerConfig {
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  /** How admins reach it (setup links, the Secure cookie flag when https). */
  readonly url: string;
  /** Failed sign-ins per admin account per 15-minute window, whoever tries. */
  readonly signInFailuresPerAccount: number;
  /** Failed sign-ins per source address per 15-minute window, whatever the account. */
  readonly signInFailuresPerAddress: number;
}

/**
 * MEDIA_URL: `file:<directory>` (the default, `file:./data/media`) or
 * `s3://<bucket>[/<prefix>]?endpoint=...&region=...&forcePathStyle=true|false` for
 * S3-compatible object storage; S3 credentials come from the standard AWS environment
 * variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE).
 */
export type MediaConfig =
  | { readonly kind: 'file'; readonly directory: string }
  | {
      readonly kind: 's3';
      readonly bucket: string;
      /** Prepended to every object key ('' or ending in '/'). */
      readonly prefix: string;
      /** Undefined: AWS's own endpoint for the region. */
      readonly endpoint: string | undefined;
      readonly region: string;
      /** Path-style addressing (bucket in the path): what most S3-compatible servers need. */
      readonly forcePathStyle: boolean;
    };

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

export type LogFormat = 'json' | 'pretty';

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** Okta-style authorization server ids: `aus` followed by base62 characters. */
export const AUTH_SERVER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{2,63}$/;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got ${value})`);
  return value;
}

function httpUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http(s) URL (got "${raw}")`);
  }
  if (url.search || url.hash) throw new ConfigError(`${name} must not carry a query or fragment (got "${raw}")`);
  return url.href.replace(/\/+$/, '');
}

function databaseUrl(env: Env): string {
  const raw = env.DATABASE_URL || 'sqlite:./data/results.db';
  if (/^sqlite:.+/.test(raw) || /^postgres(ql)?:\/\/.+/.test(raw)) return raw;
  throw new ConfigError(`DATABASE_URL must be sqlite:<path> or postgres://... (got "${redactUrl(raw)}")`);
}

function redisUrl(env: Env): string | undefined {
  const raw = env.REDIS_URL;
  if (!raw) return undefined;
  if (!/^rediss?:\/\/.+/.test(raw)) throw new ConfigError(`REDIS_URL must be redis://... or rediss://... (got "${redactUrl(raw)}")`);
  return raw;
}

const REDIS_KEY_PREFIX = /^[A-Za-z0-9._:-]{1,64}$/;

/** Unset: a prefix of this deployment's own, made from an id kept in its database (see openStoreWithFeed). */
function redisKeyPrefix(env: Env): string | undefined {
  const raw = env.REDIS_KEY_PREFIX;
  if (raw === undefined || raw === '') return undefined;
  if (!REDIS_KEY_PREFIX.test(raw)) throw new ConfigError(`REDIS_KEY_PREFIX must be 1-64 letters, digits or . _ : - (got "${raw.slice(0, 80)}")`);
  return raw;
}

function trustProxy(raw: string | undefined): boolean | string {
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^[0-9a-fA-F.:/, ]+$/.test(raw)) return raw.split(',').map((s) => s.trim()).filter(Boolean).join(',');
  throw new ConfigError(`TRUST_PROXY must be false, true, or comma-separated addresses/CIDRs (got "${raw}")`);
}

/** Conventional port of a Prometheus exporter; loopback so only the machine's operators reach it. */
export const DEFAULT_METRICS_PORT = 9464;
const HOST_PATTERN = /^[A-Za-z0-9.:%_-]+$/;

function metricsListener(env: Env, publicPort: number): MetricsListenerConfig | undefined {
  if (env.METRICS_PORT?.trim() === 'off') return undefined;
  const port = integer(env, 'METRICS_PORT', DEFAULT_METRICS_PORT, 0, 65535);
  if (port !== 0 && port === publicPort) {
    throw new ConfigError(`METRICS_PORT must differ from PORT (both ${port}): metrics are never served on the public port`);
  }
  const host = env.METRICS_HOST || '127.0.0.1';
  if (!HOST_PATTERN.test(host)) throw new ConfigError(`METRICS_HOST must be an address or host name (got "${host}")`);
  return Object.freeze({ host, port });
}

const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const S3_OPTIONS = new Set(['endpoint', 'region', 'forcePathStyle']);

export function mediaConfig(env: Env): MediaConfig {
  const raw = env.MEDIA_URL || 'file:./data/media';
  if (raw.startsWith('file:')) {
    // file:./relative, file:/absolute and file:///absolute all name a directory.
    const directory = raw.startsWith('file://') ? decodeURIComponent(new URL(raw).pathname) : raw.slice('file:'.length);
    if (!directory) throw new ConfigError(`MEDIA_URL must name a directory after file: (got "${raw}")`);
    return Object.freeze({ kind: 'file', directory });
  }
  if (!raw.startsWith('s3://')) throw new ConfigError(`MEDIA_URL must be file:<directory> or s3://<bucket>?region=... (got "${redactUrl(raw)}")`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`MEDIA_URL is not a valid s3:// URL (got "${redactUrl(raw)}")`);
  }
  if (url.username || url.password) throw new ConfigError('MEDIA_URL must not carry credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  if (!S3_BUCKET.test(url.hostname)) throw new ConfigError(`MEDIA_URL's bucket must be 3-63 lowercase letters, digits, '.' or '-' (got "${url.hostname}")`);
  for (const name of url.searchParams.keys()) {
    if (!S3_OPTIONS.has(name)) throw new ConfigError(`MEDIA_URL has an unknown option "${name}" (known: ${[...S3_OPTIONS].join(', ')})`);
  }
  const endpoint = url.searchParams.get('endpoint') || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/?#]+\/?$/.test(endpoint)) {
    throw new ConfigError(`MEDIA_URL's endpoint must be an http(s) origin like http://127.0.0.1:9000 (got "${endpoint}")`);
  }
  const pathStyle = url.searchParams.get('forcePathStyle');
  if (pathStyle !== null && pathStyle !== 'true' && pathStyle !== 'false') {
    throw new ConfigError(`MEDIA_URL's forcePathStyle must be true or false (got "${pathStyle}")`);
  }
  const prefix = decodeURIComponent(url.pathname.replace(/^\/+/, '').replace(/\/+$/, ''));
  return Object.freeze({
    kind: 's3',
    bucket: url.hostname,
    prefix: prefix ? `${prefix}/` : '',
    endpoint: endpoint?.replace(/\/$/, ''),
    region: url.searchParams.get('region') || 'us-east-1',
    // A custom endpoint (an S3-compatible server) is path-style unless told otherwise.
    forcePathStyle: pathStyle === null ? endpoint !== undefined : pathStyle === 'true',
  });
}

export const DEFAULT_ADMIN_PORT = 8081;

function adminListener(env: Env, publicPort: number, metricsPort: number | undefined): AdminListenerConfig | undefined {
  if (env.ADMIN_PORT?.trim() === 'off') return undefined;
  const port = integer(env, 'ADMIN_PORT', DEFAULT_ADMIN_PORT, 0, 65535);
  if (port !== 0 && (port === publicPort || port === metricsPort)) {
    throw new ConfigError(`ADMIN_PORT must differ from PORT and METRICS_PORT (got ${port}): the admin API has a listener of its own`);
  }
  const host = env.ADMIN_HOST || '127.0.0.1';
  if (!HOST_PATTERN.test(host)) throw new ConfigError(`ADMIN_HOST must be an address or host name (got "${host}")`);
  return Object.freeze({
    host,
    port,
    url: httpUrl(env, 'ADMIN_URL', `http://localhost:${port}`),
    signInFailuresPerAccount: integer(env, 'ADMIN_SIGN_IN_FAILURES_ACCOUNT', 5, 1, 1000),
    signInFailuresPerAddress: integer(env, 'ADMIN_SIGN_IN_FAILURES_ADDRESS', 20, 1, 100_000),
  });
}

/** Hides a password in a connection URL so it can be printed. */
export function redactUrl(raw: string): string {
  return raw.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

function connections(env: Env): ConnectionConfig {
  const headersTimeoutSeconds = integer(env, 'HEADERS_TIMEOUT_SECONDS', 10, 1, 300);
  const requestTimeoutSeconds = integer(env, 'REQUEST_TIMEOUT_SECONDS', 30, 1, 3600);
  // Node refuses a headers timeout longer than the whole request's.
  if (requestTimeoutSeconds < headersTimeoutSeconds) {
    throw new ConfigError(
      `REQUEST_TIMEOUT_SECONDS (${requestTimeoutSeconds}) must be at least HEADERS_TIMEOUT_SECONDS (${headersTimeoutSeconds})`,
    );
  }
  return Object.freeze({
    headersTimeoutSeconds,
    requestTimeoutSeconds,
    idleTimeoutSeconds: integer(env, 'IDLE_TIMEOUT_SECONDS', 60, 1, 3600),
    // Longer than common load balancers' 60 s idle timeout, so the balancer closes first.
    keepAliveTimeoutSeconds: integer(env, 'KEEP_ALIVE_TIMEOUT_SECONDS', 72, 1, 3600),
    maxPerAddress: integer(env, 'MAX_CONNECTIONS_PER_ADDRESS', 128, 0, 1_000_000),
  });
}

/** The longest access-token lifetime TOKEN_TTL_SECONDS may set: no token of ours lives longer. */
export const MAX_TOKEN_TTL_SECONDS = 86_400;

/** A client's failure ceiling defaults to this many addresses' worth of failures. */
const CLIENT_CEILING_ADDRESSES = 20;
const MAX_LIMIT = 1_000_000_000;

function rateLimitConfig(env: Env): RateLimitConfig {
  const perClientAndAddress = integer(env, 'RATE_LIMIT_TOKEN_CLIENT', 60, 1, MAX_LIMIT);
  const perClient = integer(
    env,
    'RATE_LIMIT_TOKEN_CLIENT_CEILING',
    Math.min(MAX_LIMIT, perClientAndAddress * CLIENT_CEILING_ADDRESSES),
    1,
    MAX_LIMIT,
  );
  if (perClient < perClientAndAddress) {
    throw new ConfigError(
      `RATE_LIMIT_TOKEN_CLIENT_CEILING (${perClient}) must be at least RATE_LIMIT_TOKEN_CLIENT (${perClientAndAddress})`,
    );
  }
  return Object.freeze({
    apiPerWindow: integer(env, 'RATE_LIMIT_API', 600, 1, MAX_LIMIT),
    tokenFailuresPerClientAndAddress: perClientAndAddress,
    tokenFailuresPerClient: perClient,
    tokenPerAddressPerWindow: integer(env, 'RATE_LIMIT_TOKEN_ADDRESS', 300, 1, MAX_LIMIT),
    windowSeconds: integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
  });
}

/** `terminal`: whether the logs go to a person's terminal (the default LOG_FORMAT follows it). */
export function loadConfig(env: Env = process.env, terminal = false): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const publicUrl = httpUrl(env, 'PUBLIC_URL', `http://localhost:${port}`);
  const authServerId = env.AUTH_SERVER_ID || undefined;
  if (authServerId !== undefined && (!AUTH_SERVER_ID_PATTERN.test(authServerId) || authServerId === 'default')) {
    throw new ConfigError(
      `AUTH_SERVER_ID must be 3-64 letters, digits, '-' or '_' and not "default" (got "${authServerId}")`,
    );
  }
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);
  }
  // Unset: readable on a terminal, JSON everywhere else (a file, a pipe, a log collector).
  const logFormat = env.LOG_FORMAT || (terminal ? 'pretty' : 'json');
  if (logFormat !== 'json' && logFormat !== 'pretty') throw new ConfigError(`LOG_FORMAT must be json or pretty (got "${env.LOG_FORMAT}")`);
  const audience = env.AUTH_SERVER_AUDIENCE || 'api://results';
  if (/\s/.test(audience)) throw new ConfigError(`AUTH_SERVER_AUDIENCE must not contain spaces (got "${audience}")`);
  const metrics = metricsListener(env, port);

  return Object.freeze({
    port,
    host,
    publicUrl,
    authUrl: httpUrl(env, 'AUTH_URL', publicUrl),
    baseUrl: httpUrl(env, 'BASE_URL', publicUrl),
    databaseUrl: databaseUrl(env),
    redisUrl: redisUrl(env),
    redisKeyPrefix: redisKeyPrefix(env),
    authServerId,
    authServerAudience: audience,
    tokenTtlSeconds: integer(env, 'TOKEN_TTL_SECONDS', 3600, 1, MAX_TOKEN_TTL_SECONDS),
    tokenReuseSeconds: integer(env, 'TOKEN_REUSE_SECONDS', 30, 0, 3600),
    logLevel,
    logFormat,
    rateLimit: rateLimitConfig(env),
    connections: connections(env),
    trustProxy: trustProxy(env.TRUST_PROXY),
    secretRotationGraceSeconds: integer(env, 'SECRET_ROTATION_GRACE_SECONDS', 86_400, 0, 31_536_000),
    metrics,
    admin: adminListener(env, port, metrics?.port),
    media: mediaConfig(env),
    jobConcurrency: integer(env, 'JOB_CONCURRENCY', 1, 0, 64),
    jobLeaseSeconds: integer(env, 'JOB_LEASE_SECONDS', 30, 2, 3600),
  });
}
