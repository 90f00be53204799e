import { expect } from 'vitest';
import type { Store } from '../../src/store/open-store.js';

const by = { actor: 'test' };
const WORKSPACE = '5a1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const TEST = '6a1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const sid = (n: number) => `7a1b3c4d-5e6f-4a7b-8c9d-${String(n).padStart(12, '0')}`;

/**
 * Migration 20 on either engine, from a database of version 19, then the import's outbox
 * across a process's death: `open` opens the same database as a new process would. The
 * import commits its batch and the process dies before any expansion; the next one to claim
 * delivers exactly the sessions the import completed.
 */
export async function expectPendingBatchesMigrated(open: () => Promise<Store>): Promise<void> {
  const first = await open();
  try {
    // 20 and any later one.
    expect((await first.database.migrate()).applied[0]).toBe(20);
    await first.directory.createWorkspace({ id: WORKSPACE, name: 'Research' }, by);
    await first.directory.createTest({ id: TEST, workspaceId: WORKSPACE, title: 'Checkout', productType: 'THINK_OUT_LOUD' }, by);
    const { id: userId } = await first.credentials.createUser('ada@example.com', by);
    await first.credentials.createCredential({ clientId: 'client-1', email: 'ada@example.com', secretHash: 'h' }, by);
    await first.webhooks.create({ userId, clientId: 'client-1', url: 'https://hooks.example.com/in', events: ['session.completed'], secret: 'whsec_c2VjcmV0' }, by);
    const statuses = ['COMPLETE', 'IN_PROGRESS', 'COMPLETE', 'ABANDONED'];
    await first.sessions.importSessions(TEST, statuses.map((status, i) => ({ sessionId: sid(i + 1), audienceId: null, status, startTime: i + 1, finishTime: null })), by);
    expect(Number((await first.database.one<{ n: number }>('SELECT COUNT(*) AS n FROM webhook_pending_batches'))!.n)).toBe(1);
  } finally {
    await first.database.close();
  }
  const next = await open();
  try {
    expect((await next.database.migrate()).applied).toEqual([]);
    while ((await next.webhookBatches.expandNext()) !== null);
    const claimed = await next.webhookDeliveries.claim('next', 60_000, 10);
    expect(claimed.map((d) => d.eventData.sessionId).sort()).toEqual([sid(1), sid(3)]);
    expect(await next.database.one('SELECT 1 AS left_over FROM webhook_pending_batches')).toBeUndefined();
  } finally {
    await next.database.close();
  }
}
