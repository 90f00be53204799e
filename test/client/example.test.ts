import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedOnly, makeSessions, seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/export-sessions.mjs', import.meta.url));
const BUILT_SDK = fileURLToPath(new URL('../../dist/client.js', import.meta.url));

describe('examples/export-sessions.mjs runs against a live server', () => {
  let t: TestApp;
  let s: Seeded;

  beforeAll(async () => {
    if (!existsSync(BUILT_SDK)) throw new Error(`${BUILT_SDK} is missing: run \`npm run build\` first`);
    t = await startTestApp();
    // Sessions of other statuses are stored too; the API, hence the example, never sees them.
    s = await seed(t.runtime, { sessions: makeSessions(1234, { statuses: ['COMPLETE', 'ABANDONED', 'COMPLETE', 'IN_PROGRESS', 'COMPLETE'] }) });
  });
  afterAll(() => t.close());

  const expected = () => {
    const completed = completedOnly(s.sessions);
    const byAudience: Record<string, number> = {};
    for (const session of completed) byAudience[session.audienceId ?? 'no audience'] = (byAudience[session.audienceId ?? 'no audience'] ?? 0) + 1;
    expect(completed.length).toBeLessThan(s.sessions.length);
    return `${completed.length} completed sessions in test ${s.testId} ${JSON.stringify(byAudience)}\n`;
  };

  it.each([
    ['form B (custom server)', () => ({ RESULTS_API_AUTH_SERVER_ID: t.runtime.servers.custom.id })],
    ['form A (default server)', () => ({})],
  ])('%s', async (_name, extraEnv) => {
    const env = {
      PATH: process.env.PATH ?? '',
      RESULTS_API_CLIENT_ID: s.clientId,
      RESULTS_API_CLIENT_SECRET: s.clientSecret,
      RESULTS_API_BASE_URL: t.url,
      ...extraEnv(),
    };
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [EXAMPLE, s.testId], { env });
    expect(stderr).toBe('');
    expect(stdout).toBe(expected());
  });
});
