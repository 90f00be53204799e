/**
 * Issue 31: a Python pipeline that parses every id with uuid.UUID and every time with
 * datetime.fromisoformat runs over the demo (test/details/typed-pipeline.py, Debian's python3,
 * standard library only), its token from the real service's token URL with only the host changed:
 * every JSON operation of the Results API and of the Legacy (v1) family.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEMO_COMPLETED_COUNT, DEMO_TEST_ID } from '../../src/cli/demo.js';
import { startDemoDeployment } from '../helpers/demo-deployment.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('typed-pipeline.py', import.meta.url));
const IN_CI = process.env.CI === 'true';
if (!existsSync(PYTHON) && !IN_CI) console.warn(`\n⚠ SKIPPED test/details/typed-pipeline.test.ts: no ${PYTHON} (apt-get install -y python3).\n`);

describe.skipIf(!existsSync(PYTHON) && !IN_CI)('a typed Python pipeline over the demo', () => {
  it('parses every id as a UUID and every time as ISO 8601, on every Results API and Legacy operation', async () => {
    const demo = await startDemoDeployment();
    const run = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        PYTHON,
        [SCRIPT],
        {
          env: { PATH: '/usr/bin:/bin', PYTHONNOUSERSITE: '1', BASE_URL: demo.t.url, AUTH_URL: demo.t.url, TEST_ID: DEMO_TEST_ID, CLIENT_ID: demo.clientId, CLIENT_SECRET: demo.clientSecret },
          timeout: 120_000,
        },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });
    expect(run.code, run.output).toBe(0);
    const summary = JSON.parse(run.output) as { sessions: number; ids: number; times: number; requests: number; legacyRequests: number };
    expect(summary.sessions).toBe(DEMO_COMPLETED_COUNT);
    // Per completed session at least its id, audience or plan id, task group and task uuids.
    expect(summary.ids).toBeGreaterThan(DEMO_COMPLETED_COUNT * 20);
    // v2 start and finish times, v1 completion and state times.
    expect(summary.times).toBeGreaterThanOrEqual(DEMO_COMPLETED_COUNT * 4);
    // v1: the workspaces, the demo workspace, the study, a page of completed sessions, each session.
    expect(summary.legacyRequests).toBeGreaterThanOrEqual(DEMO_COMPLETED_COUNT + 4);
  }, 180_000);
});
