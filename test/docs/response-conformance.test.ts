import type { OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseConformance, type RecordedResponse } from '../helpers/response-conformance.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** The checker every test app runs must itself catch what does not conform. */
describe('the response conformance check', () => {
  let t: TestApp;
  let check: (r: Partial<RecordedResponse>) => string[];

  const apiHeaders = {
    'content-type': 'application/problem+json; charset=utf-8',
    'cache-control': 'private, no-store',
    pragma: 'no-cache',
    'x-ratelimit-limit': '600',
    'x-ratelimit-remaining': '599',
    'x-ratelimit-reset': '60',
    'www-authenticate': 'Bearer realm="results-api"',
  };
  const unauthorized: RecordedResponse = {
    method: 'GET',
    routeUrl: '/api/v2/sessionResults',
    url: '/api/v2/sessionResults?testId=x',
    status: 401,
    headers: apiHeaders,
    body: JSON.stringify({ type: 'urn:results-api:problem:unauthorized', title: 'Authentication required', status: 401, detail: 'x' }),
  };

  beforeAll(async () => {
    t = await startTestApp();
    const document = (await (await fetch(`${t.url}/openapi.json`)).json()) as OpenAPIV3_1.Document;
    const conformance = new ResponseConformance(document);
    check = (r) => conformance.check({ ...unauthorized, ...r });
  });
  afterAll(() => t.close());

  it('accepts a documented response', () => {
    expect(check({})).toEqual([]);
  });

  it('reports an undocumented status', () => {
    expect(check({ status: 418 })).toEqual(['status 418 is not documented for GET /api/v2/sessionResults']);
  });

  it('reports an undocumented content type', () => {
    expect(check({ headers: { ...apiHeaders, 'content-type': 'application/json; charset=utf-8' } })).toEqual([
      'content type application/json; charset=utf-8 is not documented (documented: application/problem+json)',
    ]);
  });

  it('reports a body that breaks the schema', () => {
    const [violation, ...more] = check({ body: JSON.stringify({ type: 'urn:results-api:problem:not-found', status: 401 }) });
    expect(more).toEqual([]);
    expect(violation).toBe(
      "body must have required property 'title', body must have required property 'detail', " +
        'body/type must be equal to one of the allowed values: {"type":"urn:results-api:problem:not-found","status":401}',
    );
  });

  it('reports a missing required header and a header value that breaks its schema', () => {
    const { 'www-authenticate': _challenge, ...withoutChallenge } = apiHeaders;
    expect(check({ headers: { ...withoutChallenge, 'x-ratelimit-remaining': 'many' } })).toEqual([
      'header x-ratelimit-remaining must be integer (got "many")',
      'required header WWW-Authenticate is missing',
    ]);
  });

  it('leaves routes the document does not describe to the coverage test', () => {
    expect(check({ routeUrl: '/openapi.json', status: 200 })).toEqual([]);
  });
});
