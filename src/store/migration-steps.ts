/**
 * Migration steps both engines run word for word (the types of a column passed in): the data
 * each migration carries over, and a migration whose DDL differs only in column types. Other
 * DDL stays in sqlite/migrations.ts and postgres/migrations.ts.
 */
import { detailsWithGroupUuids, planWithUuids } from './plan-ids.js';
import type { TestPlan } from './store.js';

/** Version 2: the per-status counts of the sessions already stored. */
export const COUNT_STORED_SESSIONS_BY_STATUS = `
      INSERT INTO session_counts (test_id, status, session_count)
        SELECT test_id, status, COUNT(*) FROM sessions GROUP BY test_id, status;`;

/**
 * Version 3, whole: the Legacy (v1) study fields, in each engine's types for an epoch-millisecond
 * time and a JSON document. A study was ordered when it was created, and product types are
 * upper-case, as the real service writes them.
 */
export function addStudyFields(types: { epochMs: string; json: string }): string {
  return `
      ALTER TABLE tests ADD COLUMN type TEXT NOT NULL DEFAULT 'STUDYV2';
      ALTER TABLE tests ADD COLUMN ordered_at ${types.epochMs};
      ALTER TABLE tests ADD COLUMN ordered_by_email TEXT;
      ALTER TABLE tests ADD COLUMN ordered_by_name TEXT;
      ALTER TABLE tests ADD COLUMN test_plan ${types.json};
      UPDATE tests SET ordered_at = created_at;
      UPDATE tests SET product_type = upper(product_type)
       WHERE upper(product_type) IN ('SURVEY', 'LIVE_CONVERSATION', 'NON_THINK_OUT_LOUD', 'THINK_OUT_LOUD');`;
}

/** One version of the schema: its DDL, then the data steps it runs in code, if any. */
export interface Migration {
  version: number;
  sql: string;
  rewrites?: readonly RowRewrite[];
}

/**
 * A migration's data step, run by both engines in the migration's transaction: the rows
 * `select` reads, a page at a time (`key` greater than `@after`, in its order, at most
 * MIGRATION_PAGE_ROWS), are rewritten in code, and those `rewrite` changes are written back
 * by `update` (named parameters). Pages keep memory bounded, whatever the table's size.
 */
export interface RowRewrite {
  select: string;
  key: string;
  rewrite(row: Record<string, unknown>): Record<string, unknown> | undefined;
  update: string;
}

export const MIGRATION_PAGE_ROWS = 1000;

/** Runs `step` over `read`/`write`, the engine's own statements (synchronous or not). */
export async function runRowRewrite(
  step: RowRewrite,
  read: (params: { after: string }) => Promise<Record<string, unknown>[]> | Record<string, unknown>[],
  write: (values: Record<string, unknown>) => Promise<unknown> | unknown,
): Promise<void> {
  for (let after = ''; ; ) {
    const rows = await read({ after });
    for (const row of rows) {
      const values = step.rewrite(row);
      if (values) await write(values);
    }
    if (rows.length < MIGRATION_PAGE_ROWS) return;
    after = rows.at(-1)![step.key] as string;
  }
}

/** A JSON column as either engine returns it: text (SQLite, PostgreSQL text) or parsed (PostgreSQL jsonb). */
const parsed = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

/**
 * Version 12: test plan and task group ids become the UUIDs they stand for (store/plan-ids.ts),
 * in the details' group answers first (while the plans still name the old ids), then in the plans.
 */
export const PLAN_IDS_TO_UUIDS: readonly RowRewrite[] = [
  {
    select: `SELECT d.session_id, d.details, t.id AS test_id, t.test_plan FROM session_details d JOIN tests t ON t.id = d.test_id
              WHERE t.test_plan IS NOT NULL AND d.details LIKE '%"taskGroupId"%' AND d.session_id > @after
              ORDER BY d.session_id LIMIT ${MIGRATION_PAGE_ROWS}`,
    key: 'session_id',
    rewrite: (row) => {
      const details = detailsWithGroupUuids(row.test_id as string, parsed<TestPlan>(row.test_plan), row.details as string);
      return details === undefined ? undefined : { sessionId: row.session_id, details };
    },
    update: 'UPDATE session_details SET details = @details WHERE session_id = @sessionId',
  },
  {
    select: `SELECT id, test_plan FROM tests WHERE test_plan IS NOT NULL AND id > @after ORDER BY id LIMIT ${MIGRATION_PAGE_ROWS}`,
    key: 'id',
    rewrite: (row) => {
      const plan = planWithUuids(row.id as string, parsed<TestPlan>(row.test_plan));
      return plan === undefined ? undefined : { id: row.id, plan: JSON.stringify(plan) };
    },
    update: 'UPDATE tests SET test_plan = @plan WHERE id = @id',
  },
];
