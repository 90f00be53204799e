import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { applyConnectionLimits } from '../http/connection-limits.js';
import { lazyCompilers } from '../http/lazy-compilers.js';
import { loggerOptions } from '../http/logging.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import { Metrics } from '../observability/metrics.js';
import type { AuthorizationServers } from '../oauth/authorization-servers.js';
import type { SecretHasher } from '../oauth/client-secrets.js';
import type { KeyRing } from '../oauth/signing-keys.js';
import type { OpenedMediaStorage } from '../media/storage/open-media-storage.js';
import type { Store } from '../store/open-store.js';
import { adminTokenVerifier, registerAdminTokenEndpoint } from './admin-tokens.js';
import { authenticateAdmin } from './caller.js';
import { registerAdminOpenApi } from './openapi.js';
import { registerAdminErrors } from './problems.js';
import { registerAdminAccountRoutes } from './routes/admins.js';
import { registerAppRoutes } from './routes/apps.js';
import { registerAuditRoutes } from './routes/audit.js';
import { registerClipRoutes } from './routes/clips.js';
import { registerCredentialRoutes } from './routes/credentials.js';
import { registerImportRoutes } from './routes/imports.js';
import { registerJobRoutes } from './routes/jobs.js';
import { registerKeyRoutes } from './routes/keys.js';
import { adminMediaLinks, registerAdminMediaRoute } from './routes/media-link.js';
import { registerMemberRoutes } from './routes/members.js';
import { registerReelRoutes } from './routes/reels.js';
import { registerSessionMediaRoutes } from './routes/session-media.js';
import { registerTestSessionRoutes } from './routes/test-sessions.js';
import { registerTestRoutes } from './routes/tests.js';
import { registerUserApprovalRoutes } from './routes/user-approvals.js';
import { registerUserRoutes, registerUserSignInRoutes } from './routes/users.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { registerWorkspaceRoutes } from './routes/workspaces.js';
import { registerMeRoutes, registerSignInRoutes } from './session-routes.js';

/** What the admin listener needs: the runtime's parts (the same store and rules as the CLI). */
export interface AdminDeps {
  config: Config;
  store: Store;
  clock: Clock;
  keys: KeyRing;
  hasher: SecretHasher;
  servers: AuthorizationServers;
  rateLimiter: RateLimiter;
  /** The process's metrics (guessing alerts are counted there); a registry of its own when not given. */
  metrics?: Metrics;
  /** Session videos, which the console's player plays through links signed by this listener. */
  media: Pick<OpenedMediaStorage, 'storage'>;
  logger?: FastifyServerOptions['loggerInstance'];
}

/**
 * Nothing on this listener may be framed, inline script or style runs, and nothing loads from
 * another origin; the console (served here too) is built to live within it.
 */
export const ADMIN_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' blob:; connect-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** A function that adds routes to the admin listener; the console registers itself the same way. */
export type AdminPlugin = (app: FastifyInstance, deps: AdminDeps) => void | Promise<void>;

/**
 * The admin listener: the admin REST API under /admin/api (its OpenAPI document at
 * /admin/api/openapi.json) and whatever `plugins` add (the console at /). Built by `serve` and
 * by tests; it listens on ADMIN_HOST:ADMIN_PORT, never on the public port.
 */
export async function buildAdminApp(given: AdminDeps, plugins: readonly AdminPlugin[] = []): Promise<FastifyInstance> {
  const deps = { ...given, metrics: given.metrics ?? new Metrics() };
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: loggerOptions(deps.config.logLevel, deps.config.logFormat) }),
    trustProxy: deps.config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 300 },
    // A misspelt field is refused, never silently dropped; defaults fill in what is left out.
    ajv: { customOptions: { removeAdditional: false, useDefaults: true, coerceTypes: 'array' } },
    schemaController: lazyCompilers,
  });
  // The same bounds as the public listener's.
  applyConnectionLimits(app.server, deps.config.connections, app.log);
  app.decorateRequest('adminCaller', null);
  await app.register(cookie);
  // Uploads (session imports) are the only multipart bodies; each route sets its own limits.
  await app.register(multipart, { limits: { files: 1, fields: 0, parts: 1 }, throwFileSizeLimit: false });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('content-security-policy', ADMIN_CSP);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    reply.header('cross-origin-opener-policy', 'same-origin');
    if (request.url.startsWith('/admin/api/')) reply.header('cache-control', 'no-store');
  });
  registerAdminErrors(app);
  await registerAdminOpenApi(app, deps);

  await registerSignInRoutes(app, deps);
  await registerAdminTokenEndpoint(app, deps);
  const verifier = adminTokenVerifier(deps.config, deps.keys, deps.clock);
  const mediaLinks = await adminMediaLinks(deps);
  // Outside the authenticated scope: a signed link is its own credential (a <video> sends no token).
  registerAdminMediaRoute(app, { storage: deps.media.storage, links: mediaLinks });
  await app.register(async (authenticated) => {
    authenticated.addHook('onRequest', authenticateAdmin({ ...deps, verifier }));
    registerMeRoutes(authenticated, deps);
    registerUserRoutes(authenticated, deps);
    registerUserSignInRoutes(authenticated, deps);
    registerUserApprovalRoutes(authenticated, deps);
    registerAppRoutes(authenticated, deps);
    registerCredentialRoutes(authenticated, deps);
    registerWorkspaceRoutes(authenticated, deps);
    registerMemberRoutes(authenticated, deps);
    registerTestRoutes(authenticated, deps);
    registerTestSessionRoutes(authenticated, deps);
    registerKeyRoutes(authenticated, deps);
    registerAuditRoutes(authenticated, deps);
    registerAdminAccountRoutes(authenticated, deps);
    registerImportRoutes(authenticated, deps);
    registerSessionMediaRoutes(authenticated, deps, mediaLinks);
    registerClipRoutes(authenticated, deps);
    registerReelRoutes(authenticated, deps);
    registerJobRoutes(authenticated, deps);
    registerWebhookRoutes(authenticated, deps);
  });
  for (const plugin of plugins) await plugin(app, deps);
  return app;
}
