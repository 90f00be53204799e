/**
 * The service's configuration: read once from the environment, validated, typed and frozen.
 * Nothing else in src/ reads process.env; everything receives a Config.
 */

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface RateLimitConfig {
  /** Requests per client (or user, see apiLimitedPer) per window on the Results API. */
  readonly apiPerWindow: number;
  /** Whose requests the Results API limit counts together: each client credential's, or each user's (COMPAT=usertesting). */
  readonly apiLimitedPer: 'client' | 'user';
  /**
   * Failed client authentications per client id from one source address per window: a
   * stranger's guesses throttle only the stranger's address, and a correct secret is never refused.
   */
  readonly tokenFailuresPerClientAndAddress: number;
  /** Failed client authentications per client id from all addresses together per window at which guessing is reported (never refused). */
  readonly tokenGuessingAlert: number;
  /** Failed client authentications per source address per window, whatever the client. */
  readonly tokenFailuresPerAddress: number;
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

/**
 * COMPAT=usertesting: behave as the real service does where this one is more generous, so a
 * pipeline tuned here works there (docs/OPERATING.md#compatusertesting).
 */
export type CompatMode = 'usertesting' | undefined;

/** What the real service allows (its help centre's Results API FAQ): 10 requests per 60 seconds per user. */
export const REAL_SERVICE_RATE_LIMIT = { requests: 10, windowSeconds: 60 } as const;

export interface Config {
  /** Undefined: this service's own, more generous, behaviour. */
  readonly compat: CompatMode;
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
  /** How apps that support staff did not register can become known (issue 34). */
  readonly clientRegistration: ClientRegistrationConfig;
  readonly userSignIn: UserSignInConfig;
  readonly webhooks: WebhooksConfig;
}

/** Dynamic client registration (RFC 7591) and client ID metadata documents. */
export interface ClientRegistrationConfig {
  /** DYNAMIC_REGISTRATION=on (default) | off. */
  readonly dynamic: boolean;
  /** Registrations per source address per hour (DYNAMIC_REGISTRATION_PER_ADDRESS). */
  readonly dynamicPerAddressPerHour: number;
  /** CLIENT_METADATA_DOCUMENTS=on (default) | off: a client_id that is an https URL is read from there. */
  readonly metadataDocuments: boolean;
  /** CLIENT_METADATA_ALLOW_PRIVATE=true lets a metadata document live on a private or loopback address (tests, intranets). */
  readonly metadataAllowPrivate: boolean;
}

/**
 * How API users' failed sign-ins are throttled (src/access/guessing-throttle.ts), in 15-minute
 * windows: never per account alone, so a stranger cannot lock the owner out.
 */
export interface UserSignInConfig {
  /** USER_SIGN_IN_FAILURES_ACCOUNT: failures per account from one source address (or one known device). */
  readonly failuresPerAccount: number;
  /** USER_SIGN_IN_FAILURES_ADDRESS: failures per source address, whatever the account. */
  readonly failuresPerAddress: number;
  /** USER_SIGN_IN_GUESSING_ALERT: failures per account from all addresses at which guessing is reported (never refused). */
  readonly guessingAlert: number;
}

function userSignIn(env: Env): UserSignInConfig {
  return Object.freeze({
    failuresPerAccount: integer(env, 'USER_SIGN_IN_FAILURES_ACCOUNT', 5, 1, 1000),
    failuresPerAddress: integer(env, 'USER_SIGN_IN_FAILURES_ADDRESS', 20, 1, 100_000),
    guessingAlert: integer(env, 'USER_SIGN_IN_GUESSING_ALERT', 20, 1, 1_000_000),
  });
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'on' || raw === 'true') return true;
  if (raw === 'off' || raw === 'false') return false;
  throw new ConfigError(`${name} must be on or off (got "${raw.slice(0, 40)}")`);
}

function clientRegistration(env: Env): ClientRegistrationConfig {
  return Object.freeze({
    dynamic: onOff(env, 'DYNAMIC_REGISTRATION', true),
    dynamicPerAddressPerHour: integer(env, 'DYNAMIC_REGISTRATION_PER_ADDRESS', 20, 1, 100_000),
    metadataDocuments: onOff(env, 'CLIENT_METADATA_DOCUMENTS', true),
    metadataAllowPrivate: onOff(env, 'CLIENT_METADATA_ALLOW_PRIVATE', false),
  });
}

/** Webhook delivery (docs/WEBHOOKS.md). */
export interface WebhooksConfig {
  /** WEBHOOKS_ALLOW_HTTP: plain http targets are accepted too. */
  readonly allowHttp: boolean;
  /** WEBHOOKS_ALLOW_PRIVATE_TARGETS=1: private, loopback and link-local targets (and http) are accepted: tests and local use only. */
  readonly allowPrivateTargets: boolean;
  /** Deliveries this server process sends at once; 0: it sends none (another process does). */
  readonly concurrency: number;
  /** Requests in flight to one destination from one process. */
  readonly perDestination: number;
  /** How long a claimed delivery stays its process's: a killed process's deliveries are sent again after it. */
  readonly leaseSeconds: number;
}

/** Where the admin API listens (loopback by default: never exposed by accident). */
export interface AdminListenerConfig {
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  /** How admins reach it (setup links, the Secure cookie flag when https). */
  readonly url: string;
  /** Failed sign-ins per admin account from one source address (or one known device) per 15-minute window. */
  readonly signInFailuresPerAccount: number;
  /** Failed sign-ins per source address per 15-minute window, whatever the account. */
  readonly signInFailuresPerAddress: number;
  /** Failed sign-ins per admin account from all addresses per 15-minute window at which guessing is reported (never refused). */
  readonly signInGuessingAlert: number;
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
const DEFAULT_PORT = 8080;
const HOST_PATTERN = /^[A-Za-z0-9.:%_-]+$/;

/**
 * An unset ADMIN_PORT or METRICS_PORT follows PORT, at the distance the defaults keep from 8080
 * (8081, 9464): a second instance started with only another PORT takes ports of its own. PORT=0
 * (any free port), or a port past 65535, gives 0: any free port, logged at start-up.
 */
const followingPort = (publicPort: number, defaultPort: number): number => {
  const port = publicPort + defaultPort - DEFAULT_PORT;
  return publicPort === 0 || port > 65535 ? 0 : port;
};

function metricsListener(env: Env, publicPort: number): MetricsListenerConfig | undefined {
  if (env.METRICS_PORT?.trim() === 'off') return undefined;
  const port = integer(env, 'METRICS_PORT', followingPort(publicPort, DEFAULT_METRICS_PORT), 0, 65535);
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
  const port = integer(env, 'ADMIN_PORT', followingPort(publicPort, DEFAULT_ADMIN_PORT), 0, 65535);
  if (port !== 0 && (port === publicPort || port === metricsPort)) {
    const given = env.ADMIN_PORT === undefined ? `, PORT + ${DEFAULT_ADMIN_PORT - DEFAULT_PORT} when unset` : '';
    throw new ConfigError(`ADMIN_PORT must differ from PORT and METRICS_PORT (got ${port}${given}): the admin API has a listener of its own`);
  }
  const host = env.ADMIN_HOST || '127.0.0.1';
  if (!HOST_PATTERN.test(host)) throw new ConfigError(`ADMIN_HOST must be an address or host name (got "${host}")`);
  return Object.freeze({
    host,
    port,
    url: httpUrl(env, 'ADMIN_URL', `http://localhost:${port}`),
    signInFailuresPerAccount: integer(env, 'ADMIN_SIGN_IN_FAILURES_ACCOUNT', 5, 1, 1000),
    signInFailuresPerAddress: integer(env, 'ADMIN_SIGN_IN_FAILURES_ADDRESS', 20, 1, 100_000),
    signInGuessingAlert: integer(env, 'ADMIN_SIGN_IN_GUESSING_ALERT', 20, 1, 1_000_000),
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

/** Guessing against a client is reported at this many addresses' worth of failures. */
const CLIENT_ALERT_ADDRESSES = 20;
const MAX_LIMIT = 1_000_000_000;

/** COMPAT: unset or `usertesting`. */
function compatMode(env: Env): CompatMode {
  const compat = env.COMPAT || undefined;
  if (compat === undefined) return undefined;
  if (compat !== 'usertesting') throw new ConfigError(`COMPAT must be usertesting, or unset (got "${compat}")`);
  for (const name of ['RATE_LIMIT_API', 'RATE_LIMIT_WINDOW_SECONDS']) {
    if (env[name]) throw new ConfigError(`COMPAT=usertesting sets the Results API's rate limit to the real service's; unset ${name}`);
  }
  return compat;
}

function rateLimitConfig(env: Env, compat: CompatMode): RateLimitConfig {
  if (env.RATE_LIMIT_TOKEN_CLIENT_CEILING !== undefined) {
    throw new ConfigError(
      'RATE_LIMIT_TOKEN_CLIENT_CEILING is gone: a client is no longer refused for failures from many addresses; ' +
        'set GUESSING_ALERT_TOKEN_CLIENT, the count at which they are reported',
    );
  }
  const perClientAndAddress = integer(env, 'RATE_LIMIT_TOKEN_CLIENT', 60, 1, MAX_LIMIT);
  return Object.freeze({
    ...(compat === 'usertesting'
      ? { apiPerWindow: REAL_SERVICE_RATE_LIMIT.requests, apiLimitedPer: 'user' as const }
      : { apiPerWindow: integer(env, 'RATE_LIMIT_API', 600, 1, MAX_LIMIT), apiLimitedPer: 'client' as const }),
    tokenFailuresPerClientAndAddress: perClientAndAddress,
    tokenGuessingAlert: integer(env, 'GUESSING_ALERT_TOKEN_CLIENT', Math.min(MAX_LIMIT, perClientAndAddress * CLIENT_ALERT_ADDRESSES), 1, MAX_LIMIT),
    tokenFailuresPerAddress: integer(env, 'RATE_LIMIT_TOKEN_ADDRESS', 300, 1, MAX_LIMIT),
    windowSeconds: compat === 'usertesting' ? REAL_SERVICE_RATE_LIMIT.windowSeconds : integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
  });
}

function flag(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(`${name} must be 1, true, 0 or false (got "${env[name]}")`);
}

function webhooksConfig(env: Env): WebhooksConfig {
  return Object.freeze({
    allowHttp: flag(env, 'WEBHOOKS_ALLOW_HTTP'),
    allowPrivateTargets: flag(env, 'WEBHOOKS_ALLOW_PRIVATE_TARGETS'),
    concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 64, 0, 1024),
    perDestination: integer(env, 'WEBHOOK_DESTINATION_CONCURRENCY', 16, 1, 256),
    // Longer than the 10 s an attempt may take, with room to wait for a connection to its destination.
    leaseSeconds: integer(env, 'WEBHOOK_LEASE_SECONDS', 120, 2, 3600),
  });
}

/** `terminal`: whether the logs go to a person's terminal (the default LOG_FORMAT follows it). */
export function loadConfig(env: Env = process.env, terminal = false): Config {
  const port = integer(env, 'PORT', DEFAULT_PORT, 0, 65535);
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
  const compat = compatMode(env);

  return Object.freeze({
    compat,
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
    rateLimit: rateLimitConfig(env, compat),
    connections: connections(env),
    trustProxy: trustProxy(env.TRUST_PROXY),
    secretRotationGraceSeconds: integer(env, 'SECRET_ROTATION_GRACE_SECONDS', 86_400, 0, 31_536_000),
    metrics,
    admin: adminListener(env, port, metrics?.port),
    media: mediaConfig(env),
    jobConcurrency: integer(env, 'JOB_CONCURRENCY', 1, 0, 64),
    jobLeaseSeconds: integer(env, 'JOB_LEASE_SECONDS', 30, 2, 3600),
    clientRegistration: clientRegistration(env),
    userSignIn: userSignIn(env),
    webhooks: webhooksConfig(env),
  });
}
