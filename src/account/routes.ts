import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { registerAppsRoutes } from './apps-route.js';
import { registerAccountAssets } from './assets.js';
import type { AccountDeps } from './deps.js';
import { registerSetupRoute } from './setup-route.js';
import { registerSignInRoute } from './sign-in-route.js';
import { registerTwoStepRoutes } from './two-step-route.js';

/**
 * The API users' own pages on the public listener (under AUTH_URL): set a password through a
 * setup link, sign in (and out), two-step sign-in, the apps they approved. `more` registers
 * what else needs the browser session in the same scope (the authorization endpoints).
 */
export async function registerAccountPages(app: FastifyInstance, deps: AccountDeps, more: (scope: FastifyInstance) => void = () => {}): Promise<void> {
  await app.register(async (pages) => {
    await pages.register(cookie);
    registerAccountAssets(pages);
    await registerSignInRoute(pages, deps);
    registerSetupRoute(pages, deps);
    registerAppsRoutes(pages, deps);
    registerTwoStepRoutes(pages, deps);
    more(pages);
  });
}
