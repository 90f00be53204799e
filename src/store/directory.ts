import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import { conflict } from './conflicts.js';
import type { Database, Reader } from './database.js';
import { emailKey } from './email.js';
import { memberOf, testOf, workspaceOf } from './rows.js';
import { STUDY_TYPE, type Actor, type Member, type Test, type TestInput, type TestPlan, type Workspace } from './store.js';

const ACCESS = { topic: 'access' } as const;

const WORKSPACE_COLUMNS = 'w.id, w.name, w.created_at';
const TEST_COLUMNS =
  't.id, t.workspace_id, t.title, t.product_type, t.type, t.created_at, t.ordered_at, t.ordered_by_email, t.ordered_by_name, t.test_plan, t.session_count';

/** Workspaces, their members (by email) and their tests: who may see what. */
export class DirectoryRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  createWorkspace(input: { id: string; name: string }, by: Actor): Promise<Workspace> {
    return this.db.write(ACCESS, async (tx) => {
      const workspace: Workspace = { ...input, createdAt: this.clock.now() };
      const inserted = await tx.run(
        'INSERT INTO workspaces (id, name, created_at) VALUES (@id, @name, @createdAt) ON CONFLICT (id) DO NOTHING',
        workspace,
      );
      if (inserted === 0) throw conflict.workspaceExists(input.id);
      await audit(tx, this.clock, by, 'workspace.create', workspace.id, { name: workspace.name });
      return workspace;
    });
  }

  async listWorkspaces(): Promise<Workspace[]> {
    return (await this.db.all(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces w ORDER BY w.created_at, w.id`)).map(workspaceOf);
  }

  async getWorkspace(id: string): Promise<Workspace | null> {
    const r = await this.db.one(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces w WHERE w.id = @id`, { id });
    return r ? workspaceOf(r) : null;
  }

  /** Workspaces where `email` is a member. */
  async listWorkspacesForMember(email: string): Promise<Workspace[]> {
    const rows = await this.db.all(
      `SELECT ${WORKSPACE_COLUMNS} FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
        WHERE m.email_key = @key ORDER BY w.created_at, w.id`,
      { key: emailKey(email) },
    );
    return rows.map(workspaceOf);
  }

  addMember(workspaceId: string, email: string, by: Actor): Promise<Member> {
    return this.db.write(ACCESS, async (tx) => {
      await requireWorkspace(tx, workspaceId);
      const member: Member = { workspaceId, email: email.trim(), addedAt: this.clock.now() };
      const inserted = await tx.run(
        `INSERT INTO memberships (workspace_id, email_key, email, added_at) VALUES (@workspaceId, @key, @email, @addedAt)
         ON CONFLICT (workspace_id, email_key) DO NOTHING`,
        { ...member, key: emailKey(email) },
      );
      if (inserted === 0) throw conflict.alreadyMember(email, workspaceId);
      await audit(tx, this.clock, by, 'member.add', workspaceId, { email: member.email });
      return member;
    });
  }

  removeMember(workspaceId: string, email: string, by: Actor): Promise<void> {
    return this.db.write(ACCESS, async (tx) => {
      await requireWorkspace(tx, workspaceId);
      const removed = await tx.run('DELETE FROM memberships WHERE workspace_id = @workspaceId AND email_key = @key', {
        workspaceId,
        key: emailKey(email),
      });
      if (removed === 0) throw conflict.notMember(email, workspaceId);
      await audit(tx, this.clock, by, 'member.remove', workspaceId, { email: email.trim() });
    });
  }

  async listMembers(workspaceId: string): Promise<Member[]> {
    await requireWorkspace(this.db, workspaceId);
    const rows = await this.db.all(
      'SELECT workspace_id, email, added_at FROM memberships WHERE workspace_id = @workspaceId ORDER BY email_key',
      { workspaceId },
    );
    return rows.map(memberOf);
  }

  async isMember(workspaceId: string, email: string): Promise<boolean> {
    return !!(await this.db.one('SELECT 1 AS found FROM memberships WHERE workspace_id = @workspaceId AND email_key = @key', {
      workspaceId,
      key: emailKey(email),
    }));
  }

  createTest(input: TestInput, by: Actor): Promise<Test> {
    return this.db.write(ACCESS, async (tx) => {
      await requireWorkspace(tx, input.workspaceId);
      const createdAt = this.clock.now();
      const test: Test = {
        id: input.id,
        workspaceId: input.workspaceId,
        title: input.title,
        productType: input.productType,
        type: STUDY_TYPE,
        createdAt,
        orderedAt: input.orderedAt ?? createdAt,
        orderedBy: input.orderedBy ?? null,
        plan: input.plan ?? null,
        sessionCount: 0,
      };
      const inserted = await tx.run(
        `INSERT INTO tests (id, workspace_id, title, product_type, type, created_at, ordered_at, ordered_by_email, ordered_by_name, test_plan, session_count)
         VALUES (@id, @workspaceId, @title, @productType, @type, @createdAt, @orderedAt, @orderedByEmail, @orderedByName, @plan, 0)
         ON CONFLICT (id) DO NOTHING`,
        {
          ...test,
          orderedByEmail: test.orderedBy?.email ?? null,
          orderedByName: test.orderedBy?.name ?? null,
          plan: test.plan ? JSON.stringify(test.plan) : null,
        },
      );
      if (inserted === 0) throw conflict.testExists(input.id);
      await audit(tx, this.clock, by, 'test.create', test.id, { workspaceId: test.workspaceId, title: test.title });
      return test;
    });
  }

  /** Replaces the test plan of a test. */
  setTestPlan(testId: string, plan: TestPlan, by: Actor): Promise<Test> {
    return this.db.write(ACCESS, async (tx) => {
      const updated = await tx.run('UPDATE tests SET test_plan = @plan WHERE id = @testId', { testId, plan: JSON.stringify(plan) });
      if (updated === 0) throw conflict.noTest(testId);
      await audit(tx, this.clock, by, 'test.plan_set', testId, { planId: plan.id, tasks: plan.tasks.length });
      return testOf((await tx.one(`SELECT ${TEST_COLUMNS} FROM tests t WHERE t.id = @testId`, { testId }))!);
    });
  }

  async getTest(id: string): Promise<Test | null> {
    const r = await this.db.one(`SELECT ${TEST_COLUMNS} FROM tests t WHERE t.id = @id`, { id });
    return r ? testOf(r) : null;
  }

  async listTests(workspaceId: string): Promise<Test[]> {
    await requireWorkspace(this.db, workspaceId);
    const rows = await this.db.all(`SELECT ${TEST_COLUMNS} FROM tests t WHERE t.workspace_id = @workspaceId ORDER BY t.created_at, t.id`, {
      workspaceId,
    });
    return rows.map(testOf);
  }

  /** The test, if it lies in a workspace where `email` is a member; otherwise null. */
  async findVisibleTest(testId: string, email: string): Promise<Test | null> {
    const r = await this.db.one(
      `SELECT ${TEST_COLUMNS} FROM tests t
         JOIN memberships m ON m.workspace_id = t.workspace_id AND m.email_key = @key
        WHERE t.id = @testId`,
      { testId, key: emailKey(email) },
    );
    return r ? testOf(r) : null;
  }
}

// Workspaces are never deleted, so checking existence needs no lock.
async function requireWorkspace(db: Reader, id: string): Promise<void> {
  if (!(await db.one('SELECT 1 AS found FROM workspaces WHERE id = @id', { id }))) throw conflict.noWorkspace(id);
}
