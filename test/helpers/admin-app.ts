import { afterAll } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildAdminApp, type AdminPlugin } from '../../src/admin/app.js';
import { createAdminWithLink } from '../../src/admin/setup-links.js';
import type { Clock } from '../../src/clock.js';
import type { AdminRole } from '../../src/store/admins.js';
import { startTestApp, type TestApp } from './test-app.js';

export interface AdminTestApp {
  /** The public listener (token endpoint, Results API) over the same runtime. */
  t: TestApp;
  admin: FastifyInstance;
  /** e.g. http://127.0.0.1:41235 */
  adminUrl: string;
}

/**
 * The real app and the admin listener over one runtime, each on an ephemeral port; closed
 * after the file's tests. Runs on PostgreSQL in the `postgres` project, as startTestApp does.
 */
export async function startAdminTestApp(
  options: { clock?: Clock; env?: Record<string, string>; plugins?: readonly AdminPlugin[] } = {},
): Promise<AdminTestApp> {
  const t = await startTestApp({ clock: options.clock, env: { ADMIN_PORT: '0', ADMIN_URL: 'http://127.0.0.1:8081', ...options.env } });
  const admin = await buildAdminApp({ ...t.runtime, logger: undefined }, options.plugins);
  const adminUrl = await admin.listen({ host: '127.0.0.1', port: 0 });
  afterAll(async () => {
    await admin.close();
    await t.close();
  });
  return { t, admin, adminUrl };
}

export const PASSWORD = 'correct horse battery staple';

/** A browser's view of the admin API: keeps the session cookie and sends the CSRF token on changes. */
export class AdminSession {
  cookie: string | undefined;
  csrfToken: string | undefined;
  constructor(readonly adminUrl: string) {}

  async request(method: string, path: string, body?: unknown, options: { csrf?: boolean; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.cookie) headers.cookie = this.cookie;
    if (this.csrfToken && options.csrf !== false && method !== 'GET') headers['x-csrf-token'] = this.csrfToken;
    const res = await fetch(`${this.adminUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const set = res.headers.getSetCookie()[0];
    if (set) this.cookie = set.split(';')[0]!.endsWith('=') ? undefined : set.split(';')[0];
    return res;
  }

  async signIn(email: string, password = PASSWORD, totpCode?: string): Promise<Response> {
    const res = await this.request('POST', '/admin/api/sign-in', { email, password, ...(totpCode ? { totpCode } : {}) });
    if (res.status === 200) this.csrfToken = ((await res.clone().json()) as { csrfToken: string }).csrfToken;
    return res;
  }
}

let n = 0;

/** An admin of `role` whose password is PASSWORD, signed in. */
export async function signedInAdmin(app: AdminTestApp, role: AdminRole, email = `${role}-${++n}-${Date.now()}@example.com`): Promise<AdminSession & { email: string; id: string }> {
  const { admin, setupLink } = await createAdminWithLink(app.t.runtime, { email, role }, { actor: 'test' });
  const token = new URL(setupLink).hash.slice('#token='.length);
  const session = new AdminSession(app.adminUrl);
  const setup = await session.request('POST', '/admin/api/setup', { token, password: PASSWORD });
  if (setup.status !== 200) throw new Error(`setup failed: ${setup.status} ${await setup.text()}`);
  const signIn = await session.signIn(email);
  if (signIn.status !== 200) throw new Error(`sign-in failed: ${signIn.status} ${await signIn.text()}`);
  return Object.assign(session, { email, id: admin.id });
}
