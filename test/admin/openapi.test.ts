import { validate } from '@readme/openapi-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { startAdminTestApp } from '../helpers/admin-app.js';

const app = await startAdminTestApp();

describe('the admin OpenAPI document', () => {
  it('is valid OpenAPI 3.1, served by the admin listener only, and documents every admin route', async () => {
    const res = await fetch(`${app.adminUrl}/admin/api/openapi.json`);
    expect(res.status).toBe(200);
    const document = (await res.json()) as OpenAPIV3_1.Document;
    const result = await validate(structuredClone(document));
    expect(result.valid ? [] : result.errors.map((e) => e.message)).toEqual([]);
    expect(document.info.title).toBe('results-api admin API');
    expect(Object.keys(document.components?.securitySchemes ?? {}).sort()).toEqual(['adminToken', 'session']);

    const routed = app.admin
      .printRoutes({ commonPrefix: false })
      .split('\n')
      .filter((line) => line.includes('/admin/'));
    expect(routed.length).toBeGreaterThan(0);
    const documented = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item ?? {}).filter((m) => ['get', 'post', 'put', 'delete'].includes(m)).map((m) => `${m.toUpperCase()} ${path}`),
    );
    for (const expected of [
      'POST /admin/api/sign-in',
      'POST /admin/api/setup',
      'GET /admin/api/me',
      'POST /admin/oauth2/v1/token',
      'POST /admin/api/credentials',
      'POST /admin/api/credentials/{clientId}/rotate',
      'DELETE /admin/api/workspaces/{workspaceId}/members/{email}',
      'PUT /admin/api/tests/{testId}/plan',
      'POST /admin/api/tests/{testId}/sessions/import',
      'GET /admin/api/audit',
      'PUT /admin/api/admins/{adminId}/workspaces/{workspaceId}',
      'GET /admin/api/tests/{testId}/sessions/{sessionId}',
      'GET /admin/api/tests/{testId}/sessions/{sessionId}/transcript',
      'GET /admin/api/tests/{testId}/sessions/{sessionId}/video-link',
      'GET /admin/media/{collection}/{owner}/{file}',
      'POST /admin/api/sessions/{sessionId}/clips',
      'GET /admin/api/tests/{testId}/clips',
      'POST /admin/api/tests/{testId}/reels',
      'POST /admin/api/clips/{clipId}/retry',
      'POST /admin/api/reels/{reelId}/retry',
      'GET /admin/api/jobs',
      'GET /admin/api/webhooks',
      'GET /admin/api/webhooks/{webhookId}',
      'POST /admin/api/webhooks/{webhookId}/disable',
      'POST /admin/api/webhooks/{webhookId}/enable',
      'DELETE /admin/api/webhooks/{webhookId}',
      'GET /admin/api/webhooks/{webhookId}/deliveries',
    ]) {
      expect(documented).toContain(expected);
    }
    // Public and admin documents stay apart.
    const publicDocument = (await (await fetch(`${app.t.url}/openapi.json`)).json()) as OpenAPIV3_1.Document;
    expect(Object.keys(publicDocument.paths ?? {}).some((p) => p.startsWith('/admin'))).toBe(false);
    expect((await fetch(`${app.t.url}/admin/api/openapi.json`)).status).toBe(404);
  });
});
