import { randomUUID } from 'node:crypto';
import { generateClientId, generateClientSecret } from '../../src/oauth/client-secrets.js';
import type { Runtime } from '../../src/runtime.js';
import type { SessionInput } from '../../src/store/store.js';

const by = { actor: 'test' };

/** An API user with one active credential; the secret is kept here only because tests need it. */
export interface SeededClient {
  email: string;
  clientId: string;
  clientSecret: string;
}

export interface Seeded extends SeededClient {
  workspaceId: string;
  testId: string;
  /**
   * The test's sessions in the order the API must return them: newest first, ties by
   * sessionId descending (the API lists only the completed ones: see completedOnly).
   */
  sessions: SessionInput[];
}

let emailCounter = 0;
const uniqueEmail = (): string => `user${++emailCounter}-${randomUUID().slice(0, 8)}@example.com`;

/** Creates a user and issues it a credential, through the Store interface as the CLI would. */
export async function seedClient(runtime: Runtime, email = uniqueEmail()): Promise<SeededClient> {
  const clientId = generateClientId();
  const clientSecret = generateClientSecret();
  await runtime.store.credentials.createUser(email, by);
  await runtime.store.credentials.createCredential({ clientId, email, secretHash: runtime.hasher.hash(clientSecret) }, by);
  return { email, clientId, clientSecret };
}

/** A workspace with the given members (none by default). */
export async function seedWorkspace(runtime: Runtime, members: string[] = [], name = 'Lab'): Promise<string> {
  const workspace = await runtime.store.directory.createWorkspace({ id: randomUUID(), name }, by);
  for (const email of members) await runtime.store.directory.addMember(workspace.id, email, by);
  return workspace.id;
}

/**
 * `count` sessions one minute apart, newest first, starting from `newest`. Every
 * `tiesEvery`-th pair shares a startTime, so ordering by sessionId is exercised too. Statuses
 * cycle through `statuses` (all `COMPLETE`, the only ones the API lists, unless given);
 * sessions that are not complete have no finishTime.
 */
export function makeSessions(count: number, options: { newest?: number; tiesEvery?: number; statuses?: readonly string[] } = {}): SessionInput[] {
  const newest = options.newest ?? Date.UTC(2024, 10, 21, 12, 23, 52, 614);
  const tiesEvery = options.tiesEvery ?? 0;
  const statuses = options.statuses ?? ['COMPLETE'];
  const sessions: SessionInput[] = [];
  for (let i = 0; i < count; i++) {
    const slot = tiesEvery > 0 ? i - Math.floor(i / tiesEvery) : i;
    const startTime = newest - slot * 60_000;
    const status = statuses[i % statuses.length]!;
    sessions.push({
      sessionId: randomUUID(),
      audienceId: i % 3 === 0 ? null : randomUUID(),
      status,
      startTime,
      finishTime: status === 'COMPLETE' ? startTime + 90_000 + i : null,
    });
  }
  return sortNewestFirst(sessions);
}

/** What the API lists of `sessions`: the completed ones, in the order given. */
export const completedOnly = (sessions: readonly SessionInput[]): SessionInput[] => sessions.filter((s) => s.status === 'COMPLETE');

/** The order the API promises: startTime descending, ties by sessionId descending. */
export function sortNewestFirst(sessions: SessionInput[]): SessionInput[] {
  return [...sessions].sort((a, b) =>
    a.startTime !== b.startTime ? b.startTime - a.startTime : a.sessionId < b.sessionId ? 1 : a.sessionId > b.sessionId ? -1 : 0,
  );
}

/** A test in `workspaceId` holding `sessions`. */
export async function seedTest(
  runtime: Runtime,
  workspaceId: string,
  sessions: SessionInput[] = [],
  fields: { title?: string; productType?: string } = {},
): Promise<string> {
  const testId = randomUUID();
  await runtime.store.directory.createTest(
    { id: testId, workspaceId, title: fields.title ?? 'Checkout flow', productType: fields.productType ?? 'SURVEY' },
    by,
  );
  if (sessions.length > 0) await runtime.store.sessions.importSessions(testId, sessions, by);
  return testId;
}

/** The usual starting point: an API user who is a member of a workspace holding one test. */
export async function seed(runtime: Runtime, options: { sessions?: number | SessionInput[] } = {}): Promise<Seeded> {
  const client = await seedClient(runtime);
  const workspaceId = await seedWorkspace(runtime, [client.email]);
  const sessions =
    typeof options.sessions === 'object' ? sortNewestFirst(options.sessions) : makeSessions(options.sessions ?? 3);
  const testId = await seedTest(runtime, workspaceId, sessions);
  return { ...client, workspaceId, testId, sessions };
}

/** A session as the API renders it. */
export function rendered(s: SessionInput): Record<string, unknown> {
  return {
    sessionId: s.sessionId,
    audienceId: s.audienceId,
    status: s.status,
    startTime: new Date(s.startTime).toISOString(),
    finishTime: s.finishTime === null ? null : new Date(s.finishTime).toISOString(),
  };
}

export const storeActor = by;
