import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { makeSessions, seedClient, seedTest, storeActor, type SeededClient } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';

const clock = new ManualClock(Date.UTC(2025, 2, 3, 10, 0, 0, 0));
const iso = () => new Date(clock.now()).toISOString();
let t: TestApp;
let ada: SeededClient;
let loner: SeededClient;
let token: string;

const ws = {
  lab: { id: '3f9a2b1c-0d4e-4f5a-8b6c-7d8e9f0a1b2c', name: 'Lab', createdAt: '' },
  field: { id: '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d', name: 'Field studies', createdAt: '' },
  other: { id: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e', name: 'Another team', createdAt: '' },
};
const tests = {
  checkout: { id: '7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918', title: 'Checkout flow', productType: 'survey', createdAt: '', sessionCount: 7 },
  onboarding: { id: '1a2b3c4d-5e6f-4a1b-9c2d-3e4f5a6b7c8d', title: 'Onboarding', productType: 'interview', createdAt: '', sessionCount: 0 },
};

async function createWorkspace(w: { id: string; name: string; createdAt: string }, members: string[]): Promise<void> {
  clock.advance(60_000);
  w.createdAt = iso();
  await t.runtime.store.directory.createWorkspace({ id: w.id, name: w.name }, storeActor);
  for (const email of members) await t.runtime.store.directory.addMember(w.id, email, storeActor);
}

beforeAll(async () => {
  t = await startTestApp({ clock });
  ada = await seedClient(t.runtime, 'ada@example.com');
  loner = await seedClient(t.runtime);
  const other = await seedClient(t.runtime);

  // Created in this order (one minute apart); listed by creation time, not by id.
  await createWorkspace(ws.lab, ['someone@example.com', 'ada@example.com']);
  await createWorkspace(ws.field, ['Ada@Example.COM']);
  await createWorkspace(ws.other, [other.email]);

  clock.advance(60_000);
  tests.checkout.createdAt = iso();
  const { checkout, onboarding } = tests;
  await t.runtime.store.directory.createTest(
    { id: checkout.id, workspaceId: ws.lab.id, title: checkout.title, productType: checkout.productType },
    storeActor,
  );
  await t.runtime.store.sessions.importSessions(tests.checkout.id, makeSessions(7), storeActor);
  clock.advance(60_000);
  tests.onboarding.createdAt = iso();
  await t.runtime.store.directory.createTest(
    { id: onboarding.id, workspaceId: ws.lab.id, title: onboarding.title, productType: onboarding.productType },
    storeActor,
  );
  await seedTest(t.runtime, ws.other.id, makeSessions(3));

  token = await mintToken(t, ada, 'B');
});
afterAll(() => t.close());

const get = (path: string, headers: Record<string, string> = authHeaders(token)) => fetch(`${t.url}${path}`, { headers });

describe.each(['/api/v1', '/v1'])('%s', (prefix) => {
  describe('GET /workspaces', () => {
    it('lists exactly the workspaces where the caller is a member, oldest first', async () => {
      const res = await get(`${prefix}/workspaces`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(await res.json()).toEqual({ workspaces: [ws.lab, ws.field] });
    });

    it('is empty for a caller who is a member nowhere', async () => {
      const res = await get(`${prefix}/workspaces`, authHeaders(await mintToken(t, loner, 'A'), 'token'));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ workspaces: [] });
    });
  });

  describe('GET /workspaces/:workspaceId', () => {
    it('answers the workspace and its tests with id, title, productType, createdAt, sessionCount', async () => {
      const res = await get(`${prefix}/workspaces/${ws.lab.id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(await res.json()).toEqual({ ...ws.lab, tests: [tests.checkout, tests.onboarding] });
    });

    it('a workspace without tests has an empty list', async () => {
      expect(await (await get(`${prefix}/workspaces/${ws.field.id}`)).json()).toEqual({ ...ws.field, tests: [] });
    });

    it('accepts an upper-case id', async () => {
      const res = await get(`${prefix}/workspaces/${ws.lab.id.toUpperCase()}`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { id: string }).id).toBe(ws.lab.id);
    });

    it('a workspace of another team and one that does not exist get identical 404s', async () => {
      const bodies = new Set<string>();
      for (const id of [ws.other.id, randomUUID()]) {
        const res = await get(`${prefix}/workspaces/${id}`);
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
        expect(res.headers.get('cache-control')).toBe('private, no-store');
        expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
        bodies.add(await res.text());
      }
      expect(bodies.size).toBe(1);
      expect(JSON.parse([...bodies][0]!)).toEqual({
        type: 'urn:results-api:problem:not-found',
        title: 'Not found',
        status: 404,
        detail: 'Workspace not found',
      });
    });

    const notUuids = ['abc', '12345', `${ws.lab.id}0`, `urn:uuid:${ws.lab.id}`, ws.lab.id.replace(/-/g, '')];
    it.each(notUuids)('"%s" is not a UUID: 400 naming workspaceId', async (id) => {
      const res = await get(`${prefix}/workspaces/${encodeURIComponent(id)}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toEqual({
        type: 'urn:results-api:problem:invalid-parameter',
        title: 'Invalid request parameter',
        status: 400,
        detail: expect.stringMatching(/^workspaceId must be a UUID/),
      });
    });
  });
});

describe('membership is read at request time', () => {
  it('removing the member hides the workspace on the very next request', async () => {
    const bob = await seedClient(t.runtime);
    const id = randomUUID();
    await t.runtime.store.directory.createWorkspace({ id, name: 'Temporary' }, storeActor);
    await t.runtime.store.directory.addMember(id, bob.email, storeActor);
    const bobToken = await mintToken(t, bob, 'A');

    expect((await get(`/api/v1/workspaces/${id}`, authHeaders(bobToken, 'token'))).status).toBe(200);
    const listed = (await (await get('/v1/workspaces', authHeaders(bobToken, 'token'))).json()) as { workspaces: unknown[] };
    expect(listed.workspaces).toHaveLength(1);

    await t.runtime.store.directory.removeMember(id, bob.email, storeActor);
    expect((await get(`/api/v1/workspaces/${id}`, authHeaders(bobToken, 'token'))).status).toBe(404);
    expect(await (await get('/v1/workspaces', authHeaders(bobToken, 'token'))).json()).toEqual({ workspaces: [] });
  });
});
