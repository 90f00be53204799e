/**
 * Steps of a migration that both engines run word for word: the data each one carries over.
 * Their DDL stays in sqlite/migrations.ts and postgres/migrations.ts, where types differ.
 */

/** Version 2: the per-status counts of the sessions already stored. */
export const COUNT_STORED_SESSIONS_BY_STATUS = `
      INSERT INTO session_counts (test_id, status, session_count)
        SELECT test_id, status, COUNT(*) FROM sessions GROUP BY test_id, status;`;

/**
 * Version 3: a study was ordered when it was created, and product types are upper-case, as the
 * real service writes them.
 */
export const BACKFILL_STUDY_FIELDS = `
      UPDATE tests SET ordered_at = created_at;
      UPDATE tests SET product_type = upper(product_type)
       WHERE upper(product_type) IN ('SURVEY', 'LIVE_CONVERSATION', 'NON_THINK_OUT_LOUD', 'THINK_OUT_LOUD');`;
