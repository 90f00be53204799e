import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validate } from '@readme/openapi-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiPath } from '../helpers/response-conformance.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** A fixed configuration, so the served document, and the committed copy, are stable. */
const DOCUMENT_ENV = { PUBLIC_URL: 'http://localhost:8080', AUTH_SERVER_ID: 'ausDEMO0000000000000' };
const COMMITTED_COPY = fileURLToPath(new URL('../../openapi.json', import.meta.url));

/** Served by the app but not part of the API contract. */
const UNDOCUMENTED_ROUTES = [
  /^\/openapi\.(json|yaml)$/, // the document itself
  /^\/docs(?![A-Za-z0-9])/, // the reference page and its assets
  /^\/$/, // the server's address: a redirect to the reference page
  /^\/account\//, // API users' browser pages (HTML forms, not API operations: docs/USER-AUTH.md)
  /^\/oauth2\/[^/]+\/v1\/authorize$/, // the authorization endpoint: a browser page, advertised in RFC 8414 metadata
];
/** Operations of documented paths left out: GET and DELETE /mcp only ever answer 405 (no stream, no session; docs/MCP.md). */
const UNDOCUMENTED_OPERATIONS = new Set(['GET /mcp', 'DELETE /mcp']);

type Document = OpenAPIV3_1.Document;
type Operation = OpenAPIV3_1.OperationObject;

/** `printRoutes({ commonPrefix: false })` draws a tree; children print the rest of their path. */
function routesOf(tree: string): { method: string; url: string }[] {
  const routes: { method: string; url: string }[] = [];
  const prefixes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const url = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes[depth] = url;
    prefixes.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, url });
  }
  return routes;
}

const operationsOf = (document: Document) =>
  Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item ?? {})
      .filter(([key]) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(key))
      .map(([method, operation]) => ({ path, method, operation: operation as Operation })),
  );

describe('the OpenAPI document', () => {
  let t: TestApp;
  let document: Document;
  let served: string;

  beforeAll(async () => {
    t = await startTestApp({ env: DOCUMENT_ENV });
    const res = await fetch(`${t.url}/openapi.json`);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    served = await res.text();
    document = JSON.parse(served) as Document;
  });
  afterAll(() => t.close());

  it('is valid OpenAPI 3.1 (@readme/openapi-parser)', async () => {
    const result = await validate(structuredClone(document));
    expect(result.valid ? [] : result.errors.map((e) => e.message)).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(document.openapi).toBe('3.1.0');
  });

  it('is served as YAML too, describing the same API', async () => {
    const res = await fetch(`${t.url}/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/yaml');
    // Handing the parser the URL makes it fetch and parse the YAML itself.
    const result = await validate(`${t.url}/openapi.yaml`);
    expect(result.valid).toBe(true);
    expect((await res.text()).split('\n')[0]).toBe('openapi: 3.1.0');
  });

  it('describes every route the app serves, and nothing it does not', () => {
    const served = routesOf(t.app.printRoutes({ commonPrefix: false }))
      .filter((r) => r.method !== 'HEAD' && !UNDOCUMENTED_ROUTES.some((pattern) => pattern.test(r.url)))
      .map((r) => `${r.method} ${openApiPath(r.url)}`)
      .filter((operation) => !UNDOCUMENTED_OPERATIONS.has(operation))
      .sort();
    const documented = operationsOf(document)
      .map((o) => `${o.method.toUpperCase()} ${o.path}`)
      .sort();
    expect(served.length).toBeGreaterThan(20);
    expect(documented).toEqual(served);
  });

  it('names every operation, and names each one once', () => {
    const ids = operationsOf(document).map((o) => o.operation.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('documents the paging parameters with their bounds and defaults', () => {
    const list = document.paths!['/api/v2/sessionResults']!.get!;
    const parameters = Object.fromEntries(
      (list.parameters as OpenAPIV3_1.ParameterObject[]).map((p) => [p.name, { in: p.in, required: p.required, schema: p.schema }]),
    );
    expect(parameters).toMatchObject({
      testId: { in: 'query', required: true, schema: { type: 'string', format: 'uuid' } },
      // `type: number` as in the real document; only whole values (2.0 included) are taken.
      limit: { in: 'query', required: false, schema: { type: 'number', multipleOf: 1, minimum: 1, maximum: 500 } },
      offset: { in: 'query', required: false, schema: { type: 'number', multipleOf: 1, minimum: 0, maximum: 10000 } },
      rowsPerPage: { in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 500 } },
      pageNumber: { in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
    });
    const descriptions = (list.parameters as OpenAPIV3_1.ParameterObject[]).map((p) => p.description);
    expect(descriptions).toEqual([
      expect.any(String),
      expect.stringContaining('(default 25)'),
      expect.stringContaining('(default 0)'),
      expect.stringContaining('(default 25)'),
      expect.stringContaining('(default 1)'),
    ]);
  });

  it('declares API errors as problem+json (the Legacy family: its own JSON body) with their headers', () => {
    for (const { path, operation } of operationsOf(document).filter((o) => /^\/((usertesting\/)?api\/)?v[12]\//.test(o.path))) {
      const legacy = /^\/(usertesting\/api\/)?v1\//.test(path);
      const responses = operation.responses as Record<string, OpenAPIV3_1.ResponseObject>;
      const successes = Object.keys(responses).filter((s) => s.startsWith('2'));
      expect(Object.keys(responses), path).toEqual(expect.arrayContaining([successes[0], '400', '401', '403', '429', '500', '503']));
      for (const [status, response] of Object.entries(responses)) {
        const headers = Object.keys(response.headers ?? {});
        expect(headers, `${path} ${status}`).toContain('Cache-Control');
        // A fault or an outage may come before the rate limit.
        if (status !== '500' && status !== '503') expect(headers).toEqual(expect.arrayContaining(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']));
        if (status === '401' || status === '403') expect(response.headers!['WWW-Authenticate']).toMatchObject({ required: true });
        if (status === '429' || status === '503') expect(response.headers!['Retry-After']).toMatchObject({ required: true });
        const ok = path.endsWith('/transcript') ? 'text/vtt' : 'application/json';
        // 200 (206 for a range), or for the webhooks extension's writes 201, 202 or 204 (no body).
        const content = successes.includes(status) ? (status === '204' ? [] : [ok]) : [legacy ? 'application/json' : 'application/problem+json'];
        expect(Object.keys(response.content ?? {})).toEqual(content);
        if (legacy && status !== '200') {
          expect(response.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/HttpErrorResponse' });
        }
      }
    }
  });

  it('declares the authorization servers\' POST bodies as forms, and their errors as RFC 6749 errors', () => {
    const all = operationsOf(document).filter((o) => o.method === 'post' && o.path.startsWith('/oauth2/'));
    // RFC 7591 registration is the one JSON body (§3.1), and authenticates no client.
    const registrations = all.filter((o) => /\/v1\/register$/.test(o.path));
    expect(registrations).toHaveLength(3);
    for (const { operation } of registrations) {
      expect(Object.keys((operation.requestBody as OpenAPIV3_1.RequestBodyObject).content)).toEqual(['application/json']);
      expect(operation.responses).not.toHaveProperty('401');
    }
    const posts = all.filter((o) => !registrations.includes(o));
    // Token, introspection and revocation at each of the three servers: default, the configured custom id, the real service's id.
    expect(posts.map((o) => o.path)).toHaveLength(9);
    for (const { path, operation } of posts) {
      expect(path).toMatch(/^\/oauth2\/[^/]+\/v1\/(token|introspect|revoke)$/);
      const body = operation.requestBody as OpenAPIV3_1.RequestBodyObject;
      expect(Object.keys(body.content)).toEqual(['application/x-www-form-urlencoded']);
      const unauthorized = operation.responses!['401'] as OpenAPIV3_1.ResponseObject;
      expect(unauthorized.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/InvalidClientError' });
      expect(document.components!.schemas!.InvalidClientError).toMatchObject({
        required: ['error', 'error_description'],
        properties: { error: { enum: ['invalid_client'] } },
      });
      expect(Object.keys(unauthorized.headers ?? {})).toEqual(['Cache-Control', 'Pragma', 'WWW-Authenticate']);
    }
  });

  it('offers OAuth 2.0 client credentials at both token URLs, Bearer, and the token header', () => {
    expect(document.components!.securitySchemes).toMatchObject({
      oauth2: {
        type: 'oauth2',
        flows: {
          clientCredentials: {
            tokenUrl: 'http://localhost:8080/oauth2/ausDEMO0000000000000/v1/token',
            scopes: { 'studies:read': expect.any(String) },
          },
        },
      },
      oauth2Default: {
        type: 'oauth2',
        flows: {
          clientCredentials: { tokenUrl: 'http://localhost:8080/oauth2/default/v1/token', scopes: { 'public_api.read': expect.any(String) } },
        },
      },
      bearerAuth: { type: 'http', scheme: 'bearer' },
      tokenHeader: { type: 'apiKey', in: 'header', name: 'token', 'x-results-api-extension': true },
      clientBasic: { type: 'http', scheme: 'basic' },
    });
    expect(document.paths!['/api/v2/sessionResults']!.get!.security).toEqual([
      { oauth2: ['studies:read'] },
      { oauth2Default: ['public_api.read'] },
      { bearerAuth: [] },
      { tokenHeader: [] },
    ]);
  });

  it('marks what we add to the real contract as extensions: the earlier path, the current paging form, totalPages', () => {
    const earlierPath = document.paths!['/v2/sessionResults']!.get! as Operation & Record<string, unknown>;
    expect(earlierPath['x-results-api-extension']).toBe(true);
    expect((document.paths!['/api/v2/sessionResults']!.get! as Record<string, unknown>)['x-results-api-extension']).toBeUndefined();
    const marked = (earlierPath.parameters as (OpenAPIV3_1.ParameterObject & Record<string, unknown>)[])
      .filter((p) => p['x-results-api-extension'] === true)
      .map((p) => p.name);
    expect(marked).toEqual(['rowsPerPage', 'pageNumber']);
    const pagination = document.components!.schemas!.SessionSummaryPaginationDto as OpenAPIV3_1.SchemaObject;
    const extensions = Object.entries(pagination.properties!)
      .filter(([, schema]) => (schema as Record<string, unknown>)['x-results-api-extension'] === true)
      .map(([name]) => name);
    expect(extensions).toEqual(['rowsPerPage', 'pageNumber', 'totalPages']);
  });

  it('sends authorization server paths to auth_url when the two roles have different URLs', async () => {
    const split = await startTestApp({ env: { ...DOCUMENT_ENV, AUTH_URL: 'https://login.example.com', BASE_URL: 'https://api.example.com' } });
    try {
      const doc = (await (await fetch(`${split.url}/openapi.json`)).json()) as Document;
      expect(doc.servers).toEqual([{ url: 'https://api.example.com', description: 'Results API (base_url)' }]);
      const authServers = [{ url: 'https://login.example.com', description: 'Authorization servers (auth_url)' }];
      for (const path of Object.keys(doc.paths!)) {
        const isAuthPath = path.startsWith('/oauth2/') || path.startsWith('/.well-known/');
        expect(doc.paths![path]!.servers, path).toEqual(isAuthPath ? authServers : undefined);
      }
      expect(doc.components!.securitySchemes!.oauth2).toMatchObject({
        flows: { clientCredentials: { tokenUrl: 'https://login.example.com/oauth2/ausDEMO0000000000000/v1/token' } },
      });
    } finally {
      await split.close();
    }
  });

  it('matches the committed openapi.json', () => {
    const expected = `${JSON.stringify(document, null, 2)}\n`;
    if (process.env.UPDATE_OPENAPI === '1') writeFileSync(COMMITTED_COPY, expected);
    let committed = '';
    try {
      committed = readFileSync(COMMITTED_COPY, 'utf8');
    } catch {
      // reported below
    }
    if (committed !== expected) {
      expect.fail(
        'openapi.json at the repository root differs from the document the server serves. If the change is ' +
          'intended, run `UPDATE_OPENAPI=1 npx vitest run test/docs/openapi.test.ts` and commit openapi.json.',
      );
    }
  });
});
