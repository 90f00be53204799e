import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRefusals } from '../../src/docs/refusal-responses.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
/** As `npm run lint` runs it: no usage reports or update checks leave the machine. */
const REDOCLY_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? ROOT, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

/** Runs Redocly's lint with the repository's redocly.yaml; every finding, as `rule at pointer`. */
async function redoclyLint(args: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', '--format=json', ...args], {
    cwd: ROOT,
    env: REDOCLY_ENV,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' })); // it exits 1 on findings; the report says which
  const report = JSON.parse(stdout) as LintReport;
  return report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`);
}

describe("Redocly's lint of the OpenAPI document", () => {
  it('finds nothing in the committed openapi.json (what `npm run lint` checks)', async () => {
    expect(await redoclyLint([])).toEqual([]);
  });

  describe("a deployment's served document (its own PUBLIC_URL, a separate AUTH_URL)", () => {
    let t: TestApp;
    let dir: string;

    beforeAll(async () => {
      t = await startTestApp({ env: { PUBLIC_URL: 'https://results.deployment.test', AUTH_URL: 'https://login.deployment.test' } });
      dir = mkdtempSync(join(tmpdir(), 'results-api-lint-'));
    });
    afterAll(async () => {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('finds nothing, with every recommended rule on', async () => {
      const path = join(dir, 'openapi.json');
      writeFileSync(path, await (await fetch(`${t.url}/openapi.json`)).text());
      expect(await redoclyLint([path, '--config', join(ROOT, 'redocly.yaml')])).toEqual([]);
    });

    it('the same lint does report a localhost server URL (the rule is on)', async () => {
      const document = (await (await fetch(`${t.url}/openapi.json`)).json()) as OpenAPIV3_1.Document;
      document.servers = [{ url: 'http://localhost:8080' }];
      const path = join(dir, 'localhost.json');
      writeFileSync(path, JSON.stringify(document));
      expect(await redoclyLint([path, '--config', join(ROOT, 'redocly.yaml')])).toEqual([
        expect.stringMatching(/^no-server-example\.com at #\/servers\/0\/url/),
      ]);
    });
  });
});

describe('the shared 4XX response of operations that document no 4xx', () => {
  const operation = (responses: Record<string, { description: string }>) => ({ get: { responses: { 200: { description: 'OK' }, ...responses } } });

  it('is added in the body of the path family, and only where no 4xx is documented', () => {
    const document = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/healthz': operation({}),
        '/oauth2/default/v1/keys': operation({}),
        '/v1/workspaces': operation({}),
        '/api/v2/sessionResults': operation({ 404: { description: 'Not found' } }),
      },
    } as OpenAPIV3_1.Document;
    documentRefusals(document);
    const refusal = (path: string) => document.paths![path]!.get!.responses!['4XX'] as OpenAPIV3_1.ResponseObject | undefined;
    expect(refusal('/healthz')!.content).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/RequestRefusedProblem' } } });
    expect(refusal('/oauth2/default/v1/keys')!.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/RequestRefusedError' } } });
    expect(refusal('/v1/workspaces')!.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/RequestRefusedLegacyError' } } });
    expect(refusal('/api/v2/sessionResults')).toBeUndefined();
    expect(document.components!.schemas!.RequestRefusedProblem).toMatchObject({
      properties: {
        type: { enum: ['urn:results-api:problem:malformed-request', 'urn:results-api:problem:request-timeout', 'urn:results-api:problem:headers-too-large'] },
        status: { enum: [400, 408, 431] },
      },
    });
    expect(document.components!.schemas!.RequestRefusedLegacyError).toMatchObject({
      properties: { errorCode: { enum: ['BAD_REQUEST', 'REQUEST_TIMEOUT', 'REQUEST_HEADER_FIELDS_TOO_LARGE'] } },
    });
  });
});
