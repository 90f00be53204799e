/**
 * Conformance to the real contract: every operation of the fixtures (the real documents'
 * operations we implement) is called live, and each response is checked against the real
 * response schema. Operations are probed by operationId; an operation added to a fixture
 * without probes fails the suite, as does a documented status no probe produces.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { OpenAPIV3, OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInput } from '../../src/store/store.js';
import { completedOnly, makeSessions, seed, seedClient, seedTest, seedWorkspace } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { mintToken } from '../helpers/tokens.js';
import { liveResponse, RealContract, type LiveResponse } from './real-contract.js';

const contract = new RealContract();
const RATE_LIMIT = 50;

/** One live call of a real operation, and the status a correct server answers it with. */
interface Probe {
  name: string;
  status: number;
  call: () => Promise<Response>;
  /** Checks beyond the schema (the behaviour the real contract describes in words). */
  also?: (response: LiveResponse) => void | Promise<void>;
}

let t: TestApp;
let token: string;
let tokenFormA: string;
let testId: string;
let emptyTestId: string;
let foreignTestId: string;
let stored: SessionInput[];
let burnerToken: string;

beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_API: String(RATE_LIMIT) } });
  const client = await seedClient(t.runtime);
  const workspaceId = await seedWorkspace(t.runtime, [client.email]);
  stored = makeSessions(70, { tiesEvery: 4, statuses: ['COMPLETE', 'COMPLETE', 'IN_PROGRESS', 'COMPLETE', 'ABANDONED', 'COMPLETE', 'SCREENED_OUT'] });
  testId = await seedTest(t.runtime, workspaceId, stored);
  emptyTestId = await seedTest(t.runtime, workspaceId);
  foreignTestId = (await seed(t.runtime, { sessions: 3 })).testId;
  token = await mintToken(t, client, 'B');
  tokenFormA = await mintToken(t, client, 'A');
  burnerToken = await mintToken(t, await seedClient(t.runtime), 'B');
});
afterAll(() => t.close());

const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
const list = (query: string, headers: Record<string, string> = bearer(token), path = '/api/v2/sessionResults') =>
  fetch(`${t.url}${path}?${query}`, { headers });

interface SummaryPage {
  testId: string;
  sessions: { sessionId: string; status: string; finishTime: string | null }[];
  meta: { pagination: { limit: number; offset: number; totalCount: number } };
}
const pageOf = (r: LiveResponse) => JSON.parse(r.body) as SummaryPage;

/** What the real list promises in words: completed sessions only, newest first, counted alone. */
const completedPage = (offset: number, limit: number) => (r: LiveResponse) => {
  const page = pageOf(r);
  const completed = completedOnly(stored);
  expect(page.meta.pagination).toMatchObject({ limit, offset, totalCount: completed.length });
  expect(page.sessions.map((s) => s.sessionId)).toEqual(completed.slice(offset, offset + limit).map((s) => s.sessionId));
  for (const s of page.sessions) {
    expect(s.status).toBe('COMPLETE');
    expect(s.finishTime).not.toBeNull();
  }
};

const PROBES: Record<string, () => Probe[]> = {
  SessionResultsController_getSessionSummaryResults: () => [
    { name: 'defaults', status: 200, call: () => list(`testId=${testId}`), also: (r) => expect(pageOf(r).sessions).toHaveLength(25) },
    ...[0, 25, 39].map((offset) => ({
      name: `limit 25, offset ${offset}`,
      status: 200,
      call: () => list(`testId=${testId}&limit=25&offset=${offset}`),
      also: completedPage(offset, 25),
    })),
    { name: 'limit 500', status: 200, call: () => list(`testId=${testId}&limit=500`), also: completedPage(0, 500) },
    { name: 'an offset past the end', status: 200, call: () => list(`testId=${testId}&offset=10000`), also: (r) => expect(pageOf(r).sessions).toEqual([]) },
    { name: 'a test without sessions', status: 200, call: () => list(`testId=${emptyTestId}`), also: (r) => expect(pageOf(r).meta.pagination.totalCount).toBe(0) },
    { name: 'the rowsPerPage/pageNumber extension', status: 200, call: () => list(`testId=${testId}&rowsPerPage=10&pageNumber=2`), also: completedPage(10, 10) },
    {
      name: 'the earlier path with the token header',
      status: 200,
      call: () => list(`testId=${testId}&limit=25&offset=25`, { token: tokenFormA }, '/v2/sessionResults'),
      also: completedPage(25, 25),
    },
    { name: 'limit 0', status: 400, call: () => list(`testId=${testId}&limit=0`) },
    { name: 'limit 501', status: 400, call: () => list(`testId=${testId}&limit=501`) },
    { name: 'offset 10001', status: 400, call: () => list(`testId=${testId}&offset=10001`) },
    { name: 'a testId that is not a UUID', status: 400, call: () => list('testId=nope') },
    { name: 'no token', status: 401, call: () => list(`testId=${testId}`, {}) },
    { name: 'a token that is not one', status: 401, call: () => list(`testId=${testId}`, bearer('garbage')) },
    { name: 'an unknown test', status: 404, call: () => list(`testId=${randomUUID()}`) },
    { name: "another team's test", status: 404, call: () => list(`testId=${foreignTestId}`) },
    {
      name: 'over the rate limit',
      status: 429,
      call: async () => {
        for (let i = 0; i < RATE_LIMIT; i++) await (await list(`testId=${emptyTestId}`, bearer(burnerToken))).arrayBuffer();
        return list(`testId=${emptyTestId}`, bearer(burnerToken));
      },
    },
  ],
};

describe('the real contract, live', () => {
  it('probes every operation of the fixtures, and every status each one documents', () => {
    for (const { operationId, operation } of contract.operations) {
      const probes = PROBES[operationId]?.() ?? [];
      expect(probes.length, `no probes for ${operationId}`).toBeGreaterThan(0);
      expect(new Set(probes.map((p) => String(p.status))), operationId).toEqual(new Set(Object.keys(operation.responses)));
    }
  });

  for (const [operationId, probesOf] of Object.entries(PROBES)) {
    describe(operationId, () => {
      it.each(probesOf().map((p) => [p.name, p] as const))('%s', async (_name, probe) => {
        const response = await liveResponse(await probe.call());
        expect(response.status, response.body).toBe(probe.status);
        expect(contract.violations(operationId, response)).toEqual([]);
        await probe.also?.(response);
      });
    });
  }

  it('the checker itself refuses what the real schema refuses', () => {
    const headers = new Headers({ 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': 'ten' });
    const page = { testId: randomUUID(), sessions: [{ sessionId: randomUUID(), status: 'COMPLETE', startTime: 'yesterday' }], meta: {} };
    const violations = contract.violations('SessionResultsController_getSessionSummaryResults', { status: 200, headers, body: JSON.stringify(page) });
    expect(violations.join('\n')).toMatch(/x-ratelimit-limit must be integer/);
    expect(violations.join('\n')).toMatch(/startTime must match format "date-time"/);
    expect(violations.join('\n')).toMatch(/meta must have required property 'pagination'/);
    expect(contract.violations('SessionResultsController_getSessionSummaryResults', { status: 403, headers, body: '' })).toEqual([
      'status 403 is not in the real contract of SessionResultsController_getSessionSummaryResults',
    ]);
  });
});

describe('our OpenAPI document names what the real one names', () => {
  let ours: OpenAPIV3_1.Document;
  beforeAll(async () => {
    ours = (await (await fetch(`${t.url}/openapi.json`)).json()) as OpenAPIV3_1.Document;
  });
  const ref = (schema: unknown) => (schema as { $ref?: string } | undefined)?.$ref;

  it.each(contract.operations.map((o) => [o.operationId, o] as const))('%s: same path, method, operationId, parameters and models', (_id, real) => {
    const operation = (ours.paths![real.path] as Record<string, OpenAPIV3_1.OperationObject> | undefined)?.[real.method];
    expect(operation?.operationId).toBe(real.operationId);
    expect(operation!.tags).toEqual(real.operation.tags);
    const ourParameters = new Map((operation!.parameters as OpenAPIV3_1.ParameterObject[]).map((p) => [`${p.in} ${p.name}`, p]));
    for (const p of real.operation.parameters as OpenAPIV3.ParameterObject[]) {
      expect(ourParameters.get(`${p.in} ${p.name}`)?.required ?? false, `${p.in} ${p.name}`).toBe(p.required ?? false);
    }
    // What we add is marked as an extension.
    const realNames = new Set((real.operation.parameters as OpenAPIV3.ParameterObject[]).map((p) => `${p.in} ${p.name}`));
    for (const [key, p] of ourParameters) if (!realNames.has(key)) expect((p as unknown as Record<string, unknown>)['x-results-api-extension'], key).toBe(true);

    const realOk = real.operation.responses['200'] as OpenAPIV3.ResponseObject;
    const ourOk = operation!.responses!['200'] as OpenAPIV3_1.ResponseObject;
    expect(ref(ourOk.content!['application/json']!.schema)).toBe(ref(realOk.content!['application/json']!.schema));
  });

  it('defines every model of the real fixtures under its real name, with its fields and required fields', () => {
    for (const fixture of new Set(contract.operations.map((o) => o.fixture))) {
      const real = JSON.parse(readFileSync(fileURLToPath(new URL(fixture, import.meta.url)), 'utf8')) as OpenAPIV3.Document;
      for (const [name, schema] of Object.entries(real.components!.schemas!) as [string, OpenAPIV3.SchemaObject][]) {
        const mine = ours.components!.schemas![name] as OpenAPIV3_1.SchemaObject | undefined;
        expect(mine, name).toBeDefined();
        expect(Object.keys(mine!.properties ?? {}), name).toEqual(expect.arrayContaining(Object.keys(schema.properties ?? {})));
        expect(mine!.required ?? [], name).toEqual(expect.arrayContaining(schema.required ?? []));
        for (const extra of Object.keys(mine!.properties ?? {}).filter((p) => !(p in (schema.properties ?? {})))) {
          expect((mine!.properties![extra] as Record<string, unknown>)['x-results-api-extension'], `${name}.${extra}`).toBe(true);
        }
      }
    }
  });

  it('serves none of the real operations still planned (implementing one means adding it to its fixture)', () => {
    for (const planned of contract.planned) {
      const item = ours.paths![planned.path] as Record<string, unknown> | undefined;
      expect(item?.[planned.method], planned.operationId).toBeUndefined();
    }
  });

  it('the README maps every real operation to ours: implemented, or the issue that brings it', () => {
    const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    for (const { operationId } of contract.operations) expect(readme, operationId).toMatch(new RegExp(`\`${operationId}\`[^\\n]*implemented`));
    for (const { operationId, issue } of contract.planned) expect(readme, operationId).toMatch(new RegExp(`\`${operationId}\`[^\\n]*issue ${issue}\\b`));
  });
});
