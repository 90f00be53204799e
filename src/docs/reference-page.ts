import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';

export const REFERENCE_PAGE_PATH = '/docs';

/**
 * The interactive API reference at /docs: Swagger UI from its npm package, every asset served
 * by this server (the page works offline, no CDN). "Authorize" gets a token with the client
 * credentials a user pastes (or takes a pasted token); "Try it out" then calls the API.
 * Registered at app level, outside the API guard.
 */
export async function registerReferencePage(app: FastifyInstance, deps: { config: Config }): Promise<void> {
  // Someone who opens the server's address in a browser lands on its documentation.
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect(REFERENCE_PAGE_PATH));
  await app.register(swaggerUi, {
    routePrefix: REFERENCE_PAGE_PATH,
    theme: { title: 'results-api · API reference' },
    uiConfig: {
      // Without the top bar, whose "Explore" box would load other documents into the page.
      layout: 'BaseLayout',
      docExpansion: 'list',
      displayOperationId: true,
      defaultModelsExpandDepth: 0,
      // A pasted secret or token stays in this tab only, never in localStorage.
      persistAuthorization: false,
    },
    staticCSP: contentSecurityPolicy(deps.config),
    // The page may be opened at any address of this server (http://127.0.0.1:8080 when
    // PUBLIC_URL says localhost): its document names this server's own URLs relative to it.
    transformSpecification: (spec) => relativeToThisServer(spec as OpenApiDocument, deps.config),
  });
}

type OpenApiDocument = {
  servers?: { url: string }[];
  paths?: Record<string, { servers?: { url: string }[] } | undefined>;
  components?: { securitySchemes?: Record<string, { flows?: Record<string, { tokenUrl?: string }> }> };
};

/**
 * `spec` (a copy) with every absolute URL of this service ({base_url}, and {auth_url} when it
 * shares the origin) made relative: Swagger UI then calls the origin it was loaded from.
 */
function relativeToThisServer(spec: OpenApiDocument, config: Config): OpenApiDocument {
  const origin = new URL(config.baseUrl).origin;
  const relative = (url: string): string => (url.startsWith(`${origin}/`) || url === origin ? url.slice(origin.length) || '/' : url);
  for (const server of spec.servers ?? []) server.url = relative(server.url);
  for (const path of Object.values(spec.paths ?? {})) for (const server of path?.servers ?? []) server.url = relative(server.url);
  for (const scheme of Object.values(spec.components?.securitySchemes ?? {})) {
    for (const flow of Object.values(scheme.flows ?? {})) if (flow.tokenUrl) flow.tokenUrl = relative(flow.tokenUrl);
  }
  return spec;
}

/**
 * The page handles client secrets, so it may run only its own scripts and talk only to this
 * service's two roles. (The plugin's default policy would upgrade http: requests to https:,
 * which breaks a local http server.)
 */
function contentSecurityPolicy(config: Config): string {
  const origins = [...new Set([new URL(config.baseUrl).origin, new URL(config.authUrl).origin])].join(' ');
  return [
    "default-src 'self'",
    "base-uri 'self'",
    `connect-src 'self' ${origins}`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    "object-src 'none'",
    "script-src 'self'",
    "script-src-attr 'none'",
    "style-src 'self' 'unsafe-inline'",
    "frame-ancestors 'self'",
    "form-action 'self'",
  ].join('; ');
}
