/**
 * Migration steps both engines run word for word (the types of a column passed in): the data
 * each migration carries over, and a migration whose DDL differs only in column types. Other
 * DDL stays in sqlite/migrations.ts and postgres/migrations.ts.
 */

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
