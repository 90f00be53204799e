import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('works with no configuration at all', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      publicUrl: 'http://localhost:8080',
      authUrl: 'http://localhost:8080',
      baseUrl: 'http://localhost:8080',
      databaseUrl: 'sqlite:./data/results.db',
      redisUrl: undefined,
      authServerId: undefined,
      authServerAudience: 'api://results',
      tokenTtlSeconds: 3600,
      tokenReuseSeconds: 30,
      logLevel: 'info',
      trustProxy: false,
      metrics: { host: '127.0.0.1', port: 9464 },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('derives auth_url and base_url from PUBLIC_URL unless they are set', () => {
    expect(loadConfig({ PORT: '9000' }).publicUrl).toBe('http://localhost:9000');
    const config = loadConfig({ PUBLIC_URL: 'https://api.example.com/', AUTH_URL: 'https://login.example.com' });
    expect(config).toMatchObject({ authUrl: 'https://login.example.com', baseUrl: 'https://api.example.com' });
  });

  it('reads TRUST_PROXY as false, true or a list of addresses', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toBe('10.0.0.0/8,127.0.0.1');
  });

  it('counts failed client authentications per client and address and per address; reports guessing at 20 addresses\' worth by default', () => {
    expect(loadConfig({}).rateLimit).toEqual({
      apiPerWindow: 600,
      apiLimitedPer: 'client',
      tokenFailuresPerClientAndAddress: 60,
      tokenGuessingAlert: 1200,
      tokenFailuresPerAddress: 300,
      windowSeconds: 60,
    });
    expect(loadConfig({ RATE_LIMIT_TOKEN_CLIENT: '5' }).rateLimit.tokenGuessingAlert).toBe(100);
    expect(loadConfig({ RATE_LIMIT_TOKEN_CLIENT: '1000000000' }).rateLimit.tokenGuessingAlert).toBe(1_000_000_000);
    expect(loadConfig({ RATE_LIMIT_TOKEN_CLIENT: '5', GUESSING_ALERT_TOKEN_CLIENT: '3' }).rateLimit).toMatchObject({
      tokenFailuresPerClientAndAddress: 5,
      tokenGuessingAlert: 3,
    });
  });

  it("COMPAT=usertesting limits the Results API as the real service does (10 requests per 60 s per user), and says what conflicts", () => {
    expect(loadConfig({}).compat).toBeUndefined();
    const compat = loadConfig({ COMPAT: 'usertesting' });
    expect(compat.compat).toBe('usertesting');
    expect(compat.rateLimit).toMatchObject({ apiPerWindow: 10, apiLimitedPer: 'user', windowSeconds: 60 });
    expect(() => loadConfig({ COMPAT: 'okta' })).toThrow('COMPAT must be usertesting, or unset (got "okta")');
    expect(() => loadConfig({ COMPAT: 'usertesting', RATE_LIMIT_API: '100' })).toThrow(
      "COMPAT=usertesting sets the Results API's rate limit to the real service's; unset RATE_LIMIT_API",
    );
    expect(() => loadConfig({ COMPAT: 'usertesting', RATE_LIMIT_WINDOW_SECONDS: '10' })).toThrow('unset RATE_LIMIT_WINDOW_SECONDS');
  });

  it('logs readable lines on a terminal and JSON elsewhere, unless LOG_FORMAT says which', () => {
    expect(loadConfig({}).logFormat).toBe('json');
    expect(loadConfig({}, true).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }, true).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow('LOG_FORMAT must be json or pretty (got "xml")');
  });

  it('derives unset admin and metrics ports from PORT, so a second instance needs only another PORT', () => {
    const ports = (env: Record<string, string>) => {
      const config = loadConfig(env);
      return { port: config.port, admin: config.admin?.port, metrics: config.metrics?.port, adminUrl: config.admin?.url };
    };
    expect(ports({})).toEqual({ port: 8080, admin: 8081, metrics: 9464, adminUrl: 'http://localhost:8081' });
    expect(ports({ PORT: '8090' })).toEqual({ port: 8090, admin: 8091, metrics: 9474, adminUrl: 'http://localhost:8091' });
    expect(ports({ PORT: '8090', ADMIN_PORT: '7000', METRICS_PORT: '7001' })).toMatchObject({ admin: 7000, metrics: 7001 });
    // Any free port: PORT=0, or a derived port past 65535.
    expect(ports({ PORT: '0' })).toMatchObject({ admin: 0, metrics: 0 });
    expect(ports({ PORT: '65000' })).toMatchObject({ admin: 65001, metrics: 0 });
    expect(ports({ PORT: '65535' })).toMatchObject({ admin: 0, metrics: 0 });
    expect(() => loadConfig({ PORT: '8090', METRICS_PORT: '8091' })).toThrow(
      'ADMIN_PORT must differ from PORT and METRICS_PORT (got 8091, PORT + 1 when unset): the admin API has a listener of its own',
    );
  });

  it('serves metrics on METRICS_HOST:METRICS_PORT, any free port with 0, nowhere with off', () => {
    expect(loadConfig({ METRICS_PORT: '9100', METRICS_HOST: '10.0.0.5' }).metrics).toEqual({ host: '10.0.0.5', port: 9100 });
    expect(loadConfig({ METRICS_PORT: '0' }).metrics).toEqual({ host: '127.0.0.1', port: 0 });
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' }).metrics).toEqual({ host: '127.0.0.1', port: 0 });
    expect(loadConfig({ METRICS_PORT: 'off' }).metrics).toBeUndefined();
  });

  it('serves the admin API on loopback 8081 unless told otherwise, reached at ADMIN_URL; nowhere with off', () => {
    expect(loadConfig({}).admin).toEqual({
      host: '127.0.0.1',
      port: 8081,
      url: 'http://localhost:8081',
      signInFailuresPerAccount: 5,
      signInFailuresPerAddress: 20,
      signInGuessingAlert: 20,
    });
    expect(
      loadConfig({ ADMIN_PORT: '0', ADMIN_HOST: '0.0.0.0', ADMIN_URL: 'https://admin.example.com/', ADMIN_SIGN_IN_FAILURES_ACCOUNT: '3', ADMIN_SIGN_IN_FAILURES_ADDRESS: '7', ADMIN_SIGN_IN_GUESSING_ALERT: '9' }).admin,
    ).toEqual({ host: '0.0.0.0', port: 0, url: 'https://admin.example.com', signInFailuresPerAccount: 3, signInFailuresPerAddress: 7, signInGuessingAlert: 9 });
    expect(loadConfig({ ADMIN_PORT: 'off' }).admin).toBeUndefined();
  });

  it("throttles API users' sign-in like the admins' by default; USER_SIGN_IN_* set the limits", () => {
    expect(loadConfig({}).userSignIn).toEqual({ failuresPerAccount: 5, failuresPerAddress: 20, guessingAlert: 20 });
    expect(loadConfig({ USER_SIGN_IN_FAILURES_ACCOUNT: '3', USER_SIGN_IN_FAILURES_ADDRESS: '7', USER_SIGN_IN_GUESSING_ALERT: '9' }).userSignIn).toEqual({
      failuresPerAccount: 3,
      failuresPerAddress: 7,
      guessingAlert: 9,
    });
    expect(() => loadConfig({ USER_SIGN_IN_FAILURES_ACCOUNT: '0' })).toThrow('USER_SIGN_IN_FAILURES_ACCOUNT must be an integer from 1 to 1000 (got 0)');
  });

  it('runs one background job per process under a 30 s lease by default; JOB_CONCURRENCY=0 runs none', () => {
    expect(loadConfig({})).toMatchObject({ jobConcurrency: 1, jobLeaseSeconds: 30 });
    expect(loadConfig({ JOB_CONCURRENCY: '0', JOB_LEASE_SECONDS: '5' })).toMatchObject({ jobConcurrency: 0, jobLeaseSeconds: 5 });
    expect(() => loadConfig({ JOB_CONCURRENCY: 'two' })).toThrow('JOB_CONCURRENCY must be an integer from 0 to 64 (got "two")');
    expect(() => loadConfig({ JOB_CONCURRENCY: '65' })).toThrow('JOB_CONCURRENCY must be an integer from 0 to 64 (got 65)');
    // A lease shorter than two seconds would expire between heartbeats on a busy machine.
    expect(() => loadConfig({ JOB_LEASE_SECONDS: '1' })).toThrow('JOB_LEASE_SECONDS must be an integer from 2 to 3600 (got 1)');
  });

  it('bounds connections: header, request, idle and keep-alive times, and connections per address', () => {
    expect(loadConfig({}).connections).toEqual({
      headersTimeoutSeconds: 10,
      requestTimeoutSeconds: 30,
      idleTimeoutSeconds: 60,
      keepAliveTimeoutSeconds: 72,
      maxPerAddress: 128,
    });
    const set = loadConfig({
      HEADERS_TIMEOUT_SECONDS: '2',
      REQUEST_TIMEOUT_SECONDS: '2',
      IDLE_TIMEOUT_SECONDS: '5',
      KEEP_ALIVE_TIMEOUT_SECONDS: '6',
      MAX_CONNECTIONS_PER_ADDRESS: '0',
    });
    expect(set.connections).toEqual({
      headersTimeoutSeconds: 2,
      requestTimeoutSeconds: 2,
      idleTimeoutSeconds: 5,
      keepAliveTimeoutSeconds: 6,
      maxPerAddress: 0,
    });
  });

  it.each([
    [{ HEADERS_TIMEOUT_SECONDS: '0' }, 'HEADERS_TIMEOUT_SECONDS must be an integer from 1 to 300 (got 0)'],
    [{ REQUEST_TIMEOUT_SECONDS: '5', HEADERS_TIMEOUT_SECONDS: '10' }, 'REQUEST_TIMEOUT_SECONDS (5) must be at least HEADERS_TIMEOUT_SECONDS (10)'],
    [{ IDLE_TIMEOUT_SECONDS: '1.5' }, 'IDLE_TIMEOUT_SECONDS must be an integer from 1 to 3600 (got "1.5")'],
    [{ KEEP_ALIVE_TIMEOUT_SECONDS: '0' }, 'KEEP_ALIVE_TIMEOUT_SECONDS must be an integer from 1 to 3600 (got 0)'],
    [{ MAX_CONNECTIONS_PER_ADDRESS: 'many' }, 'MAX_CONNECTIONS_PER_ADDRESS must be an integer from 0 to 1000000 (got "many")'],
    [{ PORT: 'abc' }, 'PORT must be an integer from 0 to 65535 (got "abc")'],
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535 (got 70000)'],
    [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL must be an http(s) URL (got "ftp://x")'],
    [{ PUBLIC_URL: 'http://x/?a=1' }, 'PUBLIC_URL must not carry a query or fragment (got "http://x/?a=1")'],
    [{ DATABASE_URL: 'mysql://u:secret@db/x' }, 'DATABASE_URL must be sqlite:<path> or postgres://... (got "mysql://u:***@db/x")'],
    [{ REDIS_URL: 'http://r' }, 'REDIS_URL must be redis://... or rediss://... (got "http://r")'],
    [{ AUTH_SERVER_ID: 'default' }, 'AUTH_SERVER_ID must be 3-64 letters, digits, \'-\' or \'_\' and not "default" (got "default")'],
    [{ AUTH_SERVER_AUDIENCE: 'a b' }, 'AUTH_SERVER_AUDIENCE must not contain spaces (got "a b")'],
    [{ TOKEN_TTL_SECONDS: '0' }, 'TOKEN_TTL_SECONDS must be an integer from 1 to 86400 (got 0)'],
    [{ TOKEN_REUSE_SECONDS: '-1' }, 'TOKEN_REUSE_SECONDS must be an integer from 0 to 3600 (got "-1")'],
    [
      { RATE_LIMIT_TOKEN_CLIENT_CEILING: '1200' },
      'RATE_LIMIT_TOKEN_CLIENT_CEILING is gone: a client is no longer refused for failures from many addresses; set GUESSING_ALERT_TOKEN_CLIENT, the count at which they are reported',
    ],
    [{ GUESSING_ALERT_TOKEN_CLIENT: '0' }, 'GUESSING_ALERT_TOKEN_CLIENT must be an integer from 1 to 1000000000 (got 0)'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    [{ METRICS_PORT: 'no' }, 'METRICS_PORT must be an integer from 0 to 65535 (got "no")'],
    [{ METRICS_PORT: '65536' }, 'METRICS_PORT must be an integer from 0 to 65535 (got 65536)'],
    [{ PORT: '9000', METRICS_PORT: '9000' }, 'METRICS_PORT must differ from PORT (both 9000): metrics are never served on the public port'],
    [{ METRICS_PORT: '8080' }, 'METRICS_PORT must differ from PORT (both 8080): metrics are never served on the public port'],
    [{ METRICS_HOST: 'http://0.0.0.0' }, 'METRICS_HOST must be an address or host name (got "http://0.0.0.0")'],
    [{ ADMIN_PORT: '8080' }, 'ADMIN_PORT must differ from PORT and METRICS_PORT (got 8080): the admin API has a listener of its own'],
    [{ ADMIN_PORT: '9464' }, 'ADMIN_PORT must differ from PORT and METRICS_PORT (got 9464): the admin API has a listener of its own'],
    [{ ADMIN_PORT: 'x' }, 'ADMIN_PORT must be an integer from 0 to 65535 (got "x")'],
    [{ ADMIN_HOST: 'http://0.0.0.0' }, 'ADMIN_HOST must be an address or host name (got "http://0.0.0.0")'],
    [{ ADMIN_URL: 'ftp://x' }, 'ADMIN_URL must be an http(s) URL (got "ftp://x")'],
    [{ TRUST_PROXY: 'yes please' }, 'TRUST_PROXY must be false, true, or comma-separated addresses/CIDRs (got "yes please")'],
  ])('refuses %j with one clear message (and never prints a password)', (env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError(message));
  });
});
