import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ADMIN_CSP, type AdminPlugin } from './app.js';

/** Where `npm run build` writes the console (scripts/build-console.mjs); the same from src/ and dist/. */
export const CONSOLE_BUILD_DIR = fileURLToPath(new URL('../../dist/console/', import.meta.url));

/** Addresses that answer with the console's page (its own routes are in the fragment). */
export const CONSOLE_PAGES = ['/', '/setup'] as const;

/** The console's page and assets; the admin API lives beside it on the same listener. */
export const CONSOLE_ASSET_PREFIX = '/console/';

/**
 * The listener's policy (no inline script or style, this origin only, never framed), plus
 * Trusted Types for the console's page: no script may turn a string into HTML (preact builds
 * the DOM node by node, so nothing needs a policy), which closes the DOM-XSS sinks too.
 */
export const CONSOLE_CSP = `${ADMIN_CSP}; require-trusted-types-for 'script'; trusted-types 'none'`;

const NOT_BUILT = 'The admin console has not been built. Run `npm run build` (it bundles src/admin/console/ into dist/console/), then restart the server.\n';

/** The console as an admin-listener plugin (listed in ADMIN_PLUGINS, src/admin/plugins.ts). */
export const adminConsole: AdminPlugin = (app) => registerAdminConsole(app);

/**
 * The web console at `/` of the admin listener: its one page (hash-routed, also at `/setup`), and its
 * content-hashed script and stylesheet under /console/, cached for a year. Everything is
 * served by this server, so the console works offline.
 */
export async function registerAdminConsole(app: FastifyInstance, options: { buildDir?: string } = {}): Promise<void> {
  const buildDir = options.buildDir ?? CONSOLE_BUILD_DIR;
  let page: string | undefined;
  try {
    page = readFileSync(`${buildDir}/index.html`, 'utf8');
  } catch {
    app.log.warn({ buildDir }, 'the admin console is not built: `/` of the admin listener explains how to build it');
  }
  await app.register(async (scope) => {
    // The listener's own hook has set its headers (nosniff, no-referrer, DENY, the CSP); the console's CSP is stricter.
    scope.addHook('onRequest', (_request, reply, done) => {
      reply.header('content-security-policy', CONSOLE_CSP);
      done();
    });
    const sendPage = (_request: FastifyRequest, reply: FastifyReply) => {
      // The page names the current asset hashes: revalidate it, cache the assets.
      reply.header('cache-control', 'no-cache');
      if (page === undefined) return reply.code(503).header('retry-after', '60').type('text/plain; charset=utf-8').send(NOT_BUILT);
      return reply.type('text/html; charset=utf-8').send(page);
    };
    // `/setup` is where setup links point (`/setup#token=…`); the console reads the fragment.
    for (const path of CONSOLE_PAGES) scope.get(path, { schema: { hide: true } }, sendPage);
    if (page !== undefined) {
      await scope.register(fastifyStatic, {
        root: buildDir,
        prefix: CONSOLE_ASSET_PREFIX,
        index: false,
        decorateReply: false,
        immutable: true,
        maxAge: '365d',
        schemaHide: true,
        // The page is served at / (revalidated), never as a year-cached asset.
        allowedPath: (path) => path !== '/index.html',
      });
    }
  });
}
