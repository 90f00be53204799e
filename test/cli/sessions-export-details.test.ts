import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportSessions } from '../../src/cli/sessions-export.js';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import { DETAILS_PLAN, detailsInput, OTHER_ANSWERS, PARTICIPANT_A, PARTICIPANT_B } from '../helpers/details.js';
import { seedWorkspace, storeActor } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { clientFor } from '../client/helpers.js';

describe('sessions export --details', async () => {
  const { t, client } = await startSeededApp();
  let dir: string;
  let testId: string;
  const ids = [randomUUID(), randomUUID(), randomUUID()];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'results-api-export-details-'));
    const workspaceId = await seedWorkspace(t.runtime, [client.email]);
    testId = randomUUID();
    await t.runtime.store.directory.createTest({ id: testId, workspaceId, title: 'T', productType: 'NON_THINK_OUT_LOUD', plan: DETAILS_PLAN }, storeActor);
    // The first with every fact only an import knows, the participant's name included: none may be lost on the way out.
    const first = detailsInput({ ...PARTICIPANT_A, ...OTHER_ANSWERS }, {
      taskGroups: [{ taskGroupId: 'compare', sequence: 'AB' }],
      formFactorUsed: 'Computer',
      taskOrderingCondition: 'default',
      notes: 'Hesitated at "Payment", then, at last, paid.\nSecond line.',
      screenerResponses: [{ question: 'Which devices do you own?', response: ['Laptop', 'Phone'] }],
    });
    const details = [
      { ...first, participant: { ...(first.participant as object), name: 'Ana, "the tester"' } },
      detailsInput({ ...PARTICIPANT_B }),
      undefined,
    ];
    const lines = ids.map((sessionId, i) =>
      JSON.stringify({ sessionId, status: 'COMPLETE', startTime: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(), ...(details[i] ? { details: details[i] } : {}) }),
    );
    const parsed = parseSessionFile(lines.join('\n'), 'ndjson', DETAILS_PLAN);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    await t.runtime.store.sessions.importSessions(testId, parsed.sessions, storeActor);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['ndjson', 'csv'] as const)('%s: one record per session with its details, in the format the import reads back unchanged', async (format) => {
    const out = join(dir, `details.${format}`);
    const count = await exportSessions(clientFor(t, { ...client }, 'B'), testId, { format, out, progress: undefined, details: true });
    expect(count).toBe(3);
    const parsed = parseSessionFile(readFileSync(out, 'utf8'), format, DETAILS_PLAN);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.sessions.map((s) => s.sessionId)).toEqual([...ids].reverse());
    for (const session of parsed.sessions) {
      const stored = await t.runtime.store.sessionDetails.findDetails(session.sessionId);
      // A session without details exports empty ones (its plan's tasks unanswered, no session facts).
      const empty = { participant: null, formFactorUsed: null, taskOrderingCondition: null, notes: null, screenerResponses: [], taskGroups: [], tasks: [] };
      expect(session.details!.document).toEqual(stored ?? empty);
    }
    // What the comparison above covers, said outright for the session that carries every fact.
    expect(parsed.sessions.find((s) => s.sessionId === ids[0])!.details!.document).toMatchObject({
      participant: { name: 'Ana, "the tester"' },
      formFactorUsed: 'Computer',
      taskOrderingCondition: 'default',
      notes: 'Hesitated at "Payment", then, at last, paid.\nSecond line.',
      screenerResponses: [{ question: 'Which devices do you own?', response: ['Laptop', 'Phone'] }],
    });
  });
});
