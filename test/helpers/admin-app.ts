import { afterAll } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildAdminApp, type AdminDeps, type AdminPlugin } from '../../src/admin/app.js';
import { Metrics } from '../../src/observability/metrics.js';
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
  /** The admin listener's metrics (in production the process's one registry). */
  metrics: Metrics;
}

/**
 * The real app and the admin listener over one runtime, each on an ephemeral port; closed
 * after the file's tests. Runs on PostgreSQL in the `postgres` project, as startTestApp does.
 */
export async function startAdminTestApp(
  options: { clock?: Clock; env?: Record<string, string>; plugins?: readonly AdminPlugin[]; logger?: AdminDeps['logger'] } = {},
): Promise<AdminTestApp> {
  const t = await startTestApp({ clock: options.clock, env: { ADMIN_PORT: '0', ADMIN_URL: 'http://127.0.0.1:8081', ...options.env } });
  const metrics = new Metrics();
  const admin = await buildAdminApp({ ...t.runtime, metrics, logger: options.logger }, options.plugins);
  const adminUrl = await admin.listen({ host: '127.0.0.1', port: 0 });
  afterAll(async () => {
    await admin.close();
    await t.close();
  });
  return { t, admin, adminUrl, metrics };
}

export const PASSWORD = 'correct horse battery staple';

/** A browser's view of the admin API: keeps its cookies (session, device) and sends the CSRF token on changes. */
export class AdminSession {
  readonly cookies = new Map<string, string>();
  csrfToken: string | undefined;
  constructor(readonly adminUrl: string) {}

  /** The Cookie header this browser sends; undefined when it holds none. */
  get cookie(): string | undefined {
    return this.cookies.size === 0 ? undefined : [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  set cookie(header: string | undefined) {
    this.cookies.clear();
    for (const pair of header?.split('; ') ?? []) {
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }

  async request(method: string, path: string, body?: unknown, options: { csrf?: boolean; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.cookie) headers.cookie = this.cookie;
    if (this.csrfToken && options.csrf !== false && method !== 'GET') headers['x-csrf-token'] = this.csrfToken;
    const res = await fetch(`${this.adminUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    for (const set of res.headers.getSetCookie()) {
      const pair = set.split(';')[0]!;
      const eq = pair.indexOf('=');
      if (eq + 1 === pair.length) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
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
