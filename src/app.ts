import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import type { AccessReads } from './access/access-cache.js';
import type { ResourceAccess } from './access/resource-access.js';
import { registerApiRoutes, registerWebhookApiRoutes } from './api-routes.js';
import { WEBHOOKS_SCOPE } from './scope-names.js';
import { targetPolicyOf } from './webhooks/target-policy.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { registerApiGuard } from './access/api-guard.js';
import { registerAccountPages } from './account/routes.js';
import { registerAuthorizeRoutes } from './account/authorize-route.js';
import { resourceChecker } from './oauth/authorization-request.js';
import { ClientDirectory, fetchMetadataDocument } from './oauth/client-metadata-documents.js';
import { EXTENSION_KEY } from './docs/extension.js';
import { registerOpenApi } from './docs/openapi.js';
import { registerReferencePage } from './docs/reference-page.js';
import { registerErrorHandling } from './http/error-handler.js';
import { FORM_BODY_LIMIT, registerFormBodyParser, registerJsonBodyParser } from './http/form-body.js';
import { lazyCompilers } from './http/lazy-compilers.js';
import { applyConnectionLimits } from './http/connection-limits.js';
import { lazyRequestLogger } from './http/request-logger.js';
import { loggerOptions } from './http/logging.js';
import { frameworkErrorAnswer, unparsedRequestAnswer } from './http/unrouted-errors.js';
import { LEGACY_ERROR_FAMILY } from './legacy/errors.js';
import type { RateLimiter } from './http/rate-limiter.js';
import { HSTS_VALUE, sendsHsts } from './http/response-headers.js';
import type { AccessTokenVerifier } from './oauth/access-tokens.js';
import type { AuthorizationServers } from './oauth/authorization-servers.js';
import type { SecretHasher } from './oauth/client-secrets.js';
import type { ProtectedResources } from './oauth/resource-indicators.js';
import { registerProtectedResourceMetadata } from './oauth/protected-resource-metadata.js';
import { registerAuthorizationServers } from './oauth/routes.js';
import type { KeyRing } from './oauth/signing-keys.js';
import { registerPlayerRoute } from './clips/player.js';
import { SessionDetailsReader } from './details/details-reader.js';
import { registerMcpRoute } from './mcp/mcp-route.js';
import { registerBrowserAccess } from './mcp/allowed-origin.js';
import type { SessionPageReader } from './results/session-pages.js';
import type { Store } from './store/open-store.js';
import type { ApiProblem, OAuthError } from './errors.js';
import { logDependencyOutages } from './observability/dependency-outages.js';
import { registerHealth } from './health/health.js';
import type { SharedRedis } from './redis/shared-redis.js';
import { Metrics, registerMetrics } from './observability/metrics.js';
import { registerMediaLinkRoute } from './media/media-link-route.js';
import { openMediaStorage, type OpenedMediaStorage } from './media/storage/open-media-storage.js';

/** Everything the HTTP app needs, built once by the runtime (or by a test). */
export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  keys: KeyRing;
  hasher: SecretHasher;
  servers: AuthorizationServers;
  /** The REST API and the MCP endpoint, as RFC 8707 resources with RFC 9728 metadata. */
  resources: ProtectedResources;
  rateLimiter: RateLimiter;
  verifier: AccessTokenVerifier;
  reads: AccessReads;
  /** Who may see what: every route serving a caller resolves its resources here. */
  access: ResourceAccess;
  pages: SessionPageReader;
  /** Set when REDIS_URL is configured; checked by /readyz, its outages logged. */
  redis?: Pick<SharedRedis, 'ping' | 'outage'> | undefined;
  /** Session videos and other media (MEDIA_URL); opened here unless given (the runtime gives it). */
  media?: OpenedMediaStorage;
  /** Per-process metrics; created here unless given. */
  metrics?: Metrics;
  /** Overrides the logger built from config (tests capture logs with it). */
  logger?: FastifyServerOptions['loggerInstance'];
  /** Reads a client ID metadata document; the default fetches it over https with SSRF protection (tests trust their own certificate). */
  fetchClientMetadata?: (url: string) => Promise<unknown>;
  /** Sees every route as it is registered, `this` its scope (tests derive checks from the route table). */
  onRoute?: ((this: FastifyInstance, route: RouteOptions) => void) | undefined;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The API families that refuse in a body of their own rather than problem details. */
const ERROR_FAMILIES = [LEGACY_ERROR_FAMILY];

/** Builds the app with every part registered explicitly; `serve` and the tests both call it. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: loggerOptions(deps.config.logLevel, deps.config.logFormat) }),
    childLoggerFactory: lazyRequestLogger,
    // A caller's x-request-id is kept only when short and plain: it is logged and echoed.
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Behind a load balancer, the client's address comes from X-Forwarded-For (rate limits key on it).
    trustProxy: deps.config.trustProxy,
    bodyLimit: FORM_BODY_LIMIT,
    schemaController: lazyCompilers,
    // The extension mark is an annotation for the OpenAPI document, not a validation rule. A
    // closed schema's unknown field is refused (400 naming it), not dropped: a misspelt optional
    // field (`testID`) would otherwise widen a webhook subscription silently. The OAuth forms'
    // schemas stay open, so their unrecognised parameters are ignored (RFC 6749 §3.2).
    ajv: { customOptions: { keywords: [EXTENSION_KEY], removeAdditional: false } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Refusals before routing, in the documented error shapes too.
    frameworkErrors: frameworkErrorAnswer(ERROR_FAMILIES),
    clientErrorHandler: unparsedRequestAnswer(ERROR_FAMILIES),
  });
  if (deps.onRoute) app.addHook('onRoute', deps.onRoute);
  const hsts = sendsHsts(deps.config.publicUrl);
  // Header, body and idle times and connections per address are bounded, so a slow or greedy client cannot hold the listener.
  applyConnectionLimits(app.server, deps.config.connections, app.log);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (hsts) reply.header('strict-transport-security', HSTS_VALUE);
    done();
  });
  registerFormBodyParser(app);
  const metrics = deps.metrics ?? new Metrics(() => deps.store.database.poolStats?.());
  registerMetrics(app, metrics);
  const onDatabaseUnavailable = logDependencyOutages(app, { database: deps.store.database, redis: deps.redis });
  registerErrorHandling(app, { families: ERROR_FAMILIES, onRefused: (error) => countRefusal(metrics, error), onDatabaseUnavailable });
  await registerOpenApi(app, deps);
  await registerReferencePage(app, deps);

  // Without Redis the service still serves (local rate limits, one-second cache bound): degraded, not unready.
  registerHealth(app, { database: () => deps.store.database.ping() }, deps.redis ? { redis: () => deps.redis!.ping() } : {});

  registerAuthorizationServers(app, { ...deps, metrics });
  registerProtectedResourceMetadata(app, deps);
  await registerUserAuthorization(app, { ...deps, metrics });

  const media = deps.media ?? (await openMediaStorage(deps.config.media, { settings: deps.store.settings, baseUrl: deps.config.baseUrl, clock: deps.clock }));
  if (!deps.media) app.addHook('onClose', async () => media.close());
  registerMediaLinkRoute(app, { ...media, clock: deps.clock });
  registerPlayerRoute(app, { store: deps.store, ...media });

  await registerResources(app, deps, media);

  return app;
}

/** Users sign in and authorize apps (issue 34): apps are found registered, dynamically registered or by metadata document. */
async function registerUserAuthorization(app: FastifyInstance, deps: AppDeps & { metrics: Metrics }): Promise<void> {
  const registration = deps.config.clientRegistration;
  const clients = new ClientDirectory({
    apps: deps.store.apps,
    clock: deps.clock,
    enabled: registration.metadataDocuments,
    fetch: deps.fetchClientMetadata ?? ((url) => fetchMetadataDocument(url, { allowPrivate: registration.metadataAllowPrivate })),
    log: (message) => app.log.warn(message),
  });
  await registerAccountPages(app, deps, (pages) =>
    registerAuthorizeRoutes(pages, { ...deps, findApp: (clientId) => clients.find(clientId), checkResource: resourceChecker(deps.resources) }),
  );
}

/** The protected resources: the REST API, the MCP endpoint and the webhooks extension, each behind its guard. */
async function registerResources(app: FastifyInstance, deps: AppDeps, media: OpenedMediaStorage): Promise<void> {
  const details = new SessionDetailsReader(deps.access, deps.store.sessionDetails, deps.pages.watcher, deps.pages.clock);
  await app.register(async (api) => {
    registerApiGuard(api, { ...deps, rateLimit: deps.config.rateLimit, resource: deps.resources.api });
    registerApiRoutes(api, { ...deps, media, details });
  });
  // The MCP endpoint: its own guard, for tokens bound to it, with the REST API's rate limits.
  await app.register(async (mcp) => {
    registerBrowserAccess(mcp, deps.config);
    registerApiGuard(mcp, { ...deps, rateLimit: deps.config.rateLimit, resource: deps.resources.mcp });
    registerMcpRoute(mcp, {
      ...deps,
      details,
      clips: deps.store.clips,
      reels: deps.store.reels,
      storage: media.storage,
      search: deps.store.search,
      sessionDetails: deps.store.sessionDetails,
    });
  });
  await app.register(async (api) => {
    registerApiGuard(api, { ...deps, rateLimit: deps.config.rateLimit, resource: deps.resources.api, scopes: [WEBHOOKS_SCOPE] });
    registerJsonBodyParser(api);
    registerWebhookApiRoutes(api, { access: deps.access, webhooks: deps.store.webhooks, policy: targetPolicyOf(deps.config) });
  });
}

/** Failed authentications and rate-limit refusals, by a short reason (never the token). */
function countRefusal(metrics: Metrics, error: OAuthError | ApiProblem): void {
  const reason = (error.options.internal ?? error.code).split(':')[0]!.slice(0, 48);
  if (error.code === 'invalid_client') metrics.authFailures.inc({ kind: 'client', reason });
  else if (error.code === 'invalid-token') metrics.authFailures.inc({ kind: 'token', reason });
  else if (error.code === 'rate-limited') metrics.rateLimitRejections.inc({ limit: 'api' });
  else if (error.code === 'slow_down') metrics.rateLimitRejections.inc({ limit: 'token' });
}
