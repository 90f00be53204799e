import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultsApiError } from '@results-api/client';
import { exportSessions } from '../../src/cli/sessions-export.js';
import { makeSessions, rendered, seed, storeActor, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientFor } from '../client/helpers.js';

describe('exportSessions: progress and an all-or-nothing output file', () => {
  let t: TestApp;
  let s: Seeded;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp();
    s = await seed(t.runtime, { sessions: 1200 });
    dir = mkdtempSync(join(tmpdir(), 'results-api-export-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports progress after every page, the total from totalCount, and erases the bar at the end', async () => {
    const events: string[] = [];
    const progress = { update: (done: number, total: number) => events.push(`${done}/${total}`), clear: () => events.push('clear') };
    const out = join(dir, 'all.ndjson');

    const count = await exportSessions(clientFor(t, s, 'B'), s.testId, { format: 'ndjson', out, progress });

    expect(count).toBe(1200);
    expect(events).toEqual(['500/1200', '1000/1200', '1200/1200', 'clear']);
    expect(readFileSync(out, 'utf8').split('\n')).toHaveLength(1201);
  });

  it('a failure midway leaves an existing output file as it was, and no partial file', async () => {
    const out = join(dir, 'kept.csv');
    writeFileSync(out, 'the previous export\n');
    let apiRequests = 0;
    // The credential is revoked while the export runs: the second page is refused, and so is a new token.
    const client = clientFor(t, s, 'A', {
      fetch: async (input, init) => {
        if (!input.includes('/v1/token') && ++apiRequests === 2) await t.runtime.store.credentials.revokeCredential(s.clientId, storeActor);
        return fetch(input, init);
      },
    });
    const events: string[] = [];
    const progress = { update: (done: number, total: number) => events.push(`${done}/${total}`), clear: () => events.push('clear') };

    const error = await exportSessions(client, s.testId, { format: 'csv', out, progress }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ResultsApiError);
    expect(error).toMatchObject({ status: 401, oauth: { error: 'invalid_client' } });
    expect(readFileSync(out, 'utf8')).toBe('the previous export\n');
    expect(readdirSync(dir).filter((name) => name.endsWith('.partial'))).toEqual([]);
    expect(events).toEqual(['500/1200', 'clear']);
  });

  it('a test beyond the offset bound exports completely, by cursor (bound lowered)', async () => {
    const sessions = makeSessions(320, { tiesEvery: 6 }).map((x) => ({ ...x, status: 'COMPLETE', finishTime: x.startTime + 1000 }));
    const large = await seed(t.runtime, { sessions });
    const out = join(dir, 'large.ndjson');
    const events: string[] = [];
    const progress = { update: (done: number, total: number) => events.push(`${done}/${total}`), clear: () => events.push('clear') };

    const count = await exportSessions(clientFor(t, large, 'A'), large.testId, { format: 'ndjson', out, progress, offsetBound: 100 });

    expect(count).toBe(320);
    const rows = readFileSync(out, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as unknown);
    expect(rows).toEqual(large.sessions.map(rendered));
    expect(events.at(-2)).toBe('320/320');
  });
});
