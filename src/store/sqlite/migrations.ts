import { addStudyFields, COUNT_STORED_SESSIONS_BY_STATUS, PLAN_IDS_TO_UUIDS, type Migration } from '../migration-steps.js';

/**
 * SQLite schema, one entry per version. Applied in order, each in its own transaction;
 * never edit a released entry, add a new one.
 */
export const sqliteMigrations: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;

      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        email_key TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE credentials (
        client_id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id),
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
      ) STRICT;
      CREATE INDEX credentials_by_user ON credentials (user_id);

      CREATE TABLE credential_secrets (
        client_id TEXT NOT NULL REFERENCES credentials (client_id),
        hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        PRIMARY KEY (client_id, hash)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE workspaces (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE memberships (
        workspace_id TEXT NOT NULL REFERENCES workspaces (id),
        email_key TEXT NOT NULL,
        email TEXT NOT NULL,
        added_at INTEGER NOT NULL,
        PRIMARY KEY (workspace_id, email_key)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX memberships_by_email ON memberships (email_key, workspace_id);

      CREATE TABLE tests (
        id TEXT PRIMARY KEY,
        workspace_id TEXT NOT NULL REFERENCES workspaces (id),
        title TEXT NOT NULL,
        product_type TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        session_count INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX tests_by_workspace ON tests (workspace_id, created_at);

      -- Clustered in page order, so a page of a test is one contiguous range read.
      CREATE TABLE sessions (
        test_id TEXT NOT NULL REFERENCES tests (id),
        start_time INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        audience_id TEXT,
        status TEXT NOT NULL,
        finish_time INTEGER,
        PRIMARY KEY (test_id, start_time, session_id)
      ) STRICT, WITHOUT ROWID;
      CREATE UNIQUE INDEX sessions_by_id ON sessions (session_id);

      CREATE TABLE signing_keys (
        kid TEXT PRIMARY KEY,
        alg TEXT NOT NULL,
        private_key_pem TEXT NOT NULL,
        public_jwk TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        retired_at INTEGER
      ) STRICT;

      CREATE TABLE revoked_tokens (
        jti TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE audit_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        subject TEXT NOT NULL,
        details TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    sql: `
      -- The API lists completed sessions only: this index holds every column a page reads, so a
      -- page of one status is one contiguous range (and the anchored deep-page seek stays flat
      -- however many sessions of other statuses lie in between), as the primary key is for all.
      CREATE INDEX sessions_by_status ON sessions (test_id, status, start_time, session_id, audience_id, finish_time);

      -- How many sessions of each status a test holds, rewritten by every import in its own
      -- transaction, so a page's totalCount is one row read whatever the test's size.
      CREATE TABLE session_counts (
        test_id TEXT NOT NULL REFERENCES tests (id),
        status TEXT NOT NULL,
        session_count INTEGER NOT NULL,
        PRIMARY KEY (test_id, status)
      ) STRICT, WITHOUT ROWID;
      ${COUNT_STORED_SESSIONS_BY_STATUS}
    `,
  },
  {
    // The Legacy (v1) family: what a study answers (its type, who ordered it and when, its test
    // plan as JSON). Its keyset pages of completed sessions read version 2's sessions_by_status.
    version: 3,
    sql: addStudyFields({ epochMs: 'INTEGER', json: 'TEXT' }),
  },
  {
    // What each session contains (participant, answers, task-group responses): one JSON document
    // per session, written by the session import in its transaction. No foreign key to sessions:
    // the bulk import replaces changed session rows and may rebuild sessions_by_id meanwhile.
    version: 4,
    sql: `
      CREATE TABLE session_details (
        session_id TEXT PRIMARY KEY,
        test_id TEXT NOT NULL REFERENCES tests (id),
        -- Before the document: a test's scores read this column of every row without
        -- walking the document's overflow pages.
        scoring TEXT NOT NULL,
        details TEXT NOT NULL
      ) STRICT;
      CREATE INDEX session_details_by_test ON session_details (test_id, session_id);
    `,
  },
  {
    // Session transcripts (WebVTT), one per session, imported whole; sha256 lets a re-import
    // of the same text be recognized without reading the text back. No foreign key to
    // sessions: the session import replaces a changed session's row (delete, insert) and may
    // rebuild sessions_by_id. Sessions are never deleted, and the transcript import checks
    // that its session exists in the test.
    version: 5,
    sql: `
      CREATE TABLE transcripts (
        session_id TEXT PRIMARY KEY,
        vtt TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        imported_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    // Session videos (issue 15): one per session, its bytes in the media storage (MEDIA_URL)
    // under object_key, named by their SHA-256 so importing the same file again changes nothing.
    // regions: JSON {screen?, camera?}, each {topLeftPoint: {x, y}, widthPx, heightPx}.
    // No foreign key to sessions: the bulk session import rebuilds that table's indexes, and
    // VideoRepository.saveVideo checks the session in its transaction.
    version: 6,
    sql: `
      CREATE TABLE videos (
        session_id TEXT PRIMARY KEY,
        test_id TEXT NOT NULL REFERENCES tests (id),
        object_key TEXT NOT NULL,
        poster_key TEXT,
        content_sha256 TEXT NOT NULL,
        content_type TEXT NOT NULL,
        size_bytes INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        has_audio INTEGER NOT NULL CHECK (has_audio IN (0, 1)),
        regions TEXT NOT NULL,
        imported_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX videos_by_test ON videos (test_id, session_id);
    `,
  },
  {
    // Background jobs (issue 15): one row per piece of work, claimed under a lease that the
    // running process renews; a row whose lease ran out is claimed again (its process died).
    version: 7,
    sql: `
      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        subject TEXT NOT NULL,
        payload TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'error')),
        attempts INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL,
        run_at INTEGER NOT NULL,
        lease_owner TEXT,
        lease_until INTEGER,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX jobs_due ON jobs (state, run_at);
      CREATE INDEX jobs_by_subject ON jobs (subject);

      -- Clips of session videos (no foreign key to sessions: see version 6). Their status is
      -- their job's (job_id): queued or running is GENERATING, done GENERATED, error ERROR.
      -- layout: JSON {mainStream, pipPosition, pipState}.
      CREATE TABLE clips (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        test_id TEXT NOT NULL REFERENCES tests (id),
        name TEXT NOT NULL,
        description TEXT,
        start_ms INTEGER NOT NULL CHECK (start_ms >= 0),
        end_ms INTEGER NOT NULL CHECK (end_ms > start_ms),
        layout TEXT NOT NULL,
        job_id TEXT NOT NULL REFERENCES jobs (id),
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX clips_by_session ON clips (session_id, start_ms, id);
      CREATE INDEX clips_by_test ON clips (test_id);

      -- Highlight reels: clips of one test (clip_ids: a JSON array, in playing order) joined into
      -- one video by their job (job_id), whose state is the reel's status as for clips.
      CREATE TABLE highlight_reels (
        id TEXT PRIMARY KEY,
        test_id TEXT NOT NULL REFERENCES tests (id),
        name TEXT NOT NULL,
        -- The legacy v1 family finds a reel by this token (highlightreel/{token}).
        token TEXT NOT NULL UNIQUE,
        clip_ids TEXT NOT NULL,
        duration_ms INTEGER NOT NULL,
        job_id TEXT NOT NULL REFERENCES jobs (id),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX highlight_reels_by_test ON highlight_reels (test_id, created_at, id);
    `,
  },
  {
    // Admin accounts of the admin API and console (issue 17): roles, passwords hashed with
    // scrypt (the parameters stored with the hash), optional TOTP, one-time setup links (only a
    // hash is kept), server-side sessions (only a hash of the cookie), the workspaces each
    // account admin administers, and the admin API's own client credentials.
    version: 8,
    sql: `
      CREATE TABLE admins (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        email_key TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL CHECK (role IN ('operator', 'support', 'account-admin')),
        password_hash TEXT,
        totp_secret TEXT,
        totp_pending_secret TEXT,
        totp_last_step INTEGER,
        setup_token_hash TEXT UNIQUE,
        setup_expires_at INTEGER,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE admin_sessions (
        id_hash TEXT PRIMARY KEY,
        admin_id TEXT NOT NULL REFERENCES admins (id),
        csrf_token TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX admin_sessions_by_admin ON admin_sessions (admin_id);

      CREATE TABLE admin_workspaces (
        admin_id TEXT NOT NULL REFERENCES admins (id),
        workspace_id TEXT NOT NULL REFERENCES workspaces (id),
        assigned_at INTEGER NOT NULL,
        PRIMARY KEY (admin_id, workspace_id)
      ) STRICT, WITHOUT ROWID;

      -- Admin API clients (client credentials): each acts as the admin it belongs to.
      CREATE TABLE admin_clients (
        client_id TEXT PRIMARY KEY,
        admin_id TEXT NOT NULL REFERENCES admins (id),
        secret_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;
      CREATE INDEX admin_clients_by_admin ON admin_clients (admin_id);
    `,
  },
  {
    // Sessions clustered by status: the table's own order is now the order of a page of one
    // status (the only listing the API serves), so version 2's covering index goes, and with it
    // a second copy of every row that each import had to sort or insert (about a sixth of a
    // 1M-session import's CPU). The table is rebuilt because SQLite cannot change a primary
    // key in place; nothing references it by foreign key.
    version: 9,
    sql: `
      CREATE TABLE sessions_clustered_by_status (
        test_id TEXT NOT NULL REFERENCES tests (id),
        status TEXT NOT NULL,
        start_time INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        audience_id TEXT,
        finish_time INTEGER,
        PRIMARY KEY (test_id, status, start_time, session_id)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO sessions_clustered_by_status (test_id, status, start_time, session_id, audience_id, finish_time)
        SELECT test_id, status, start_time, session_id, audience_id, finish_time FROM sessions ORDER BY test_id, status, start_time, session_id;
      DROP TABLE sessions;
      ALTER TABLE sessions_clustered_by_status RENAME TO sessions;
      CREATE UNIQUE INDEX sessions_by_id ON sessions (session_id);
    `,
  },
  {
    // Transcript cues (issue 30), read from the WebVTT once, at import, and stored, so that no
    // request parses a transcript: in pages of 200 cues, each page a JSON array of
    // [startMs, endMs, text] in file order, and their count (TranscriptRepository). Not columns
    // of transcripts: a column after vtt is read past the whole text (its overflow pages), as
    // the first benchmark of a 68 MB transcript showed (56 ms a read). cue_count NULL: a
    // transcript imported before, whose cues the store stores when it is next opened
    // (storeMissingCues), finding them by the partial index.
    version: 10,
    sql: `
      CREATE TABLE transcript_cues (
        session_id TEXT PRIMARY KEY,
        cue_count INTEGER
      ) STRICT;
      CREATE INDEX transcript_cues_to_store ON transcript_cues (session_id) WHERE cue_count IS NULL;
      INSERT INTO transcript_cues (session_id, cue_count) SELECT session_id, NULL FROM transcripts;
      CREATE TABLE transcript_cue_pages (
        session_id TEXT NOT NULL,
        page INTEGER NOT NULL,
        cues TEXT NOT NULL,
        PRIMARY KEY (session_id, page)
      ) STRICT;
    `,
  },
  {
    // When each video's last frame starts (issue 30): a clip starting later has no picture, so
    // clips are refused there. Null for videos imported before: a second's margin stands in.
    version: 11,
    sql: `ALTER TABLE videos ADD COLUMN last_frame_ms INTEGER;`,
  },
  {
    // Test plan and task group ids are UUIDs on the wire, as the real documents type them
    // (issue 31): stored plans and the details' group answers get the UUIDs their readable
    // ids stand for (store/plan-ids.ts), in code, in this migration's transaction.
    version: 12,
    sql: '',
    rewrites: PLAN_IDS_TO_UUIDS,
  },
  {
    // The sentiment a clip's creator gave it (issue 31: the Legacy v1 clip's sentimentTag),
    // one of the two the real document allows; null for clips made without one, and before.
    version: 13,
    sql: `ALTER TABLE clips ADD COLUMN sentiment TEXT CHECK (sentiment IN ('positive', 'negative'));`,
  },
  {
    // API users sign in and authorize apps (issue 34): passwords, TOTP and setup links on users;
    // their browser sessions; apps; grants, authorization codes and refresh tokens (hashes only).
    version: 14,
    sql: `
      ALTER TABLE users ADD COLUMN password_hash TEXT;
      ALTER TABLE users ADD COLUMN totp_secret TEXT;
      ALTER TABLE users ADD COLUMN totp_pending_secret TEXT;
      ALTER TABLE users ADD COLUMN totp_last_step INTEGER;
      ALTER TABLE users ADD COLUMN setup_token_hash TEXT;
      ALTER TABLE users ADD COLUMN setup_expires_at INTEGER;
      CREATE UNIQUE INDEX users_by_setup_token ON users (setup_token_hash);

      CREATE TABLE user_sessions (
        id_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id),
        csrf_token TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX user_sessions_by_user ON user_sessions (user_id);

      -- Partner apps: registered by support staff, by dynamic registration (RFC 7591), or
      -- read from a client ID metadata document (client_id is then its https URL).
      CREATE TABLE apps (
        client_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        client_type TEXT NOT NULL CHECK (client_type IN ('confidential', 'public')),
        origin TEXT NOT NULL CHECK (origin IN ('registered', 'dynamic', 'metadata')),
        redirect_uris TEXT NOT NULL,
        scopes TEXT NOT NULL,
        secret_hash TEXT,
        created_at INTEGER NOT NULL,
        fetched_at INTEGER,
        revoked_at INTEGER
      ) STRICT;

      -- What a user approved for an app: one row per authorization (code exchange), the family
      -- of its refresh tokens; revoking it ends every token of the family.
      CREATE TABLE app_grants (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id),
        client_id TEXT NOT NULL,
        scopes TEXT NOT NULL,
        resource TEXT,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
      ) STRICT;
      CREATE INDEX app_grants_by_user ON app_grants (user_id, client_id);

      CREATE TABLE authorization_codes (
        code_hash TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users (id),
        redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        scopes TEXT NOT NULL,
        resource TEXT,
        expires_at INTEGER NOT NULL,
        used_at INTEGER,
        grant_id TEXT
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE refresh_tokens (
        token_hash TEXT PRIMARY KEY,
        grant_id TEXT NOT NULL REFERENCES app_grants (id),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX refresh_tokens_by_grant ON refresh_tokens (grant_id);
    `,
  },
  {
    // Webhooks (issue 35): subscriptions, the event outbox and its deliveries.
    version: 15,
    sql: `
      -- Webhook subscriptions (issue 35): each belongs to an API user and the credential that
      -- made it (a revoked credential's subscriptions deliver nothing more). secret signs
      -- deliveries; previous_secret keeps signing until its expiry after a rotation.
      CREATE TABLE webhook_subscriptions (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id),
        client_id TEXT NOT NULL REFERENCES credentials (client_id),
        url TEXT NOT NULL,
        description TEXT,
        test_id TEXT,
        workspace_id TEXT,
        secret TEXT NOT NULL,
        previous_secret TEXT,
        previous_secret_expires_at INTEGER,
        disabled_at INTEGER,
        disabled_reason TEXT,
        -- The first failed delivery since the last success: three days of failure disable it.
        failing_since INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX webhook_subscriptions_by_user ON webhook_subscriptions (user_id, created_at);

      -- Which event types each subscription wants: what an event's fan-out joins on.
      CREATE TABLE webhook_subscription_events (
        type TEXT NOT NULL,
        subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions (id),
        PRIMARY KEY (type, subscription_id)
      ) STRICT;

      -- The outbox: events written in the transaction of the change that causes them (only
      -- when some subscription wants them). once_key makes an event happen once (a session's
      -- first completion). data: JSON ids in the API's names; links are added when sent.
      CREATE TABLE webhook_events (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        once_key TEXT UNIQUE,
        test_id TEXT,
        workspace_id TEXT,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;

      -- One delivery of an event to a subscription, claimed under a lease as jobs are; its
      -- event id is the webhook-id of every attempt.
      CREATE TABLE webhook_deliveries (
        subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions (id),
        event_id TEXT NOT NULL REFERENCES webhook_events (id),
        status TEXT NOT NULL CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed', 'skipped')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        lease_owner TEXT,
        lease_until INTEGER,
        response_code INTEGER,
        duration_ms INTEGER,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (subscription_id, event_id)
      ) STRICT;
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
      CREATE INDEX webhook_deliveries_log ON webhook_deliveries (subscription_id, created_at);
    `,
  },
  {
    // Full-text search (issue 32) over what participants said (transcript cues, one entry per
    // speaker of a cue, markup removed) and wrote or said in answers (written and verbal
    // responses): search_entries holds each with its session, test, task, time and speaker;
    // search_index is its FTS5 index (external content, porter stemming, kept by the triggers in
    // the writer's transaction). search_backlog: sessions whose transcript or details were
    // imported before, indexed when the store is next opened (SearchRepository.indexBacklog).
    version: 16,
    sql: `
      CREATE TABLE search_entries (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        test_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        task_id TEXT,
        start_ms INTEGER,
        end_ms INTEGER,
        speaker TEXT,
        text TEXT NOT NULL
      ) STRICT;
      CREATE INDEX search_entries_by_session ON search_entries (session_id, kind);
      CREATE VIRTUAL TABLE search_index USING fts5(
        text, content = 'search_entries', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER search_entries_indexed AFTER INSERT ON search_entries BEGIN
        INSERT INTO search_index (rowid, text) VALUES (new.id, new.text);
      END;
      CREATE TRIGGER search_entries_unindexed AFTER DELETE ON search_entries BEGIN
        INSERT INTO search_index (search_index, rowid, text) VALUES ('delete', old.id, old.text);
      END;
      CREATE TABLE search_backlog (session_id TEXT PRIMARY KEY) STRICT;
      INSERT INTO search_backlog (session_id) SELECT session_id FROM transcripts UNION SELECT session_id FROM session_details;
    `,
  },
  {
    // Video objects are named by their content (issue 31): sessions with the same bytes share
    // one object and one poster, so an object is deleted only when no row names it any more
    // (VideoRepository.releaseObjects), which these indexes answer at once however many rows
    // share a key.
    version: 17,
    sql: `
      CREATE INDEX videos_by_object ON videos (object_key);
      CREATE INDEX videos_by_poster ON videos (poster_key);
    `,
  },
  {
    // No statement reads refresh tokens by their grant (issue 34): a family is revoked through
    // app_grants.revoked_at, which every rotation and lookup joins, and grants are never
    // deleted, so the foreign key's check never searches refresh_tokens by grant_id. The
    // index only cost every rotation a third page written.
    version: 18,
    sql: `
      DROP INDEX refresh_tokens_by_grant;
    `,
  },
  {
    // A search within one test (issue 32) intersects in the index: each entry's test as one
    // token in a second FTS5 column (test_token, a virtual column of search_entries, which the
    // external-content index reads by name), matched with the words. Before, FTS5 walked the
    // newest matches of every test and each was looked up for its test: `page` within the
    // oldest of ten tests, 125-155 ms over a million cues. Words are matched in `text` only.
    version: 19,
    sql: `
      DROP TRIGGER search_entries_indexed;
      DROP TRIGGER search_entries_unindexed;
      DROP TABLE search_index;
      ALTER TABLE search_entries ADD COLUMN test_token TEXT GENERATED ALWAYS AS ('t' || replace(test_id, '-', '')) VIRTUAL;
      CREATE VIRTUAL TABLE search_index USING fts5(
        text, test_token, content = 'search_entries', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
      );
      INSERT INTO search_index (search_index) VALUES ('rebuild');
      CREATE TRIGGER search_entries_indexed AFTER INSERT ON search_entries BEGIN
        INSERT INTO search_index (rowid, text, test_token) VALUES (new.id, new.text, new.test_token);
      END;
      CREATE TRIGGER search_entries_unindexed AFTER DELETE ON search_entries BEGIN
        INSERT INTO search_index (search_index, rowid, text, test_token) VALUES ('delete', old.id, old.text, old.test_token);
      END;
    `,
  },
  {
    // The import's outbox is one row per chunk of sessions it completed (issue 35): a row per
    // session in webhook_events and another in webhook_deliveries made an import with a
    // subscription cost 2.5 times one without. The delivery worker turns each batch into its
    // events and deliveries in its own transaction (WebhookPendingBatches), event ids derived
    // from the batch's id and each session's so that a retried expansion makes the same ones.
    // AUTOINCREMENT: a batch id is never reused once its row is deleted.
    version: 20,
    sql: `
      CREATE TABLE webhook_pending_batches (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL,
        test_id TEXT NOT NULL,
        workspace_id TEXT,
        -- A JSON array of session ids.
        session_ids TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    // An import's first completions of a test are batched by key range, not by id (issue 35):
    // a batch names a run of the test's COMPLETE sessions in their primary key's order, about
    // 100 bytes instead of 39 KB per 1,000 sessions. SQLite cannot drop a NOT NULL: the table is
    // rebuilt, its batches, ids and id sequence kept.
    version: 21,
    sql: `
      CREATE TABLE webhook_pending_batches_v21 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL,
        test_id TEXT NOT NULL,
        workspace_id TEXT,
        -- A JSON array of session ids, or null when key_range names the sessions.
        session_ids TEXT,
        -- A JSON object {"after": [start_time, session_id] or null, "upTo": [start_time, session_id]}.
        key_range TEXT,
        created_at INTEGER NOT NULL,
        CHECK ((session_ids IS NULL) <> (key_range IS NULL))
      ) STRICT;
      INSERT INTO webhook_pending_batches_v21 (id, type, test_id, workspace_id, session_ids, created_at)
        SELECT id, type, test_id, workspace_id, session_ids, created_at FROM webhook_pending_batches;
      -- Event ids derive from batch ids: the sequence goes on where it was, not from the largest kept.
      DELETE FROM sqlite_sequence WHERE name = 'webhook_pending_batches_v21';
      INSERT INTO sqlite_sequence (name, seq) SELECT 'webhook_pending_batches_v21', seq FROM sqlite_sequence WHERE name = 'webhook_pending_batches';
      DROP TABLE webhook_pending_batches;
      ALTER TABLE webhook_pending_batches_v21 RENAME TO webhook_pending_batches;
    `,
  },
  {
    // A batch whose expansion fails is set aside for a while, longer after each failure, so
    // the batches after it are expanded meanwhile (the oldest due batch goes first).
    // retry_at: ms since the epoch, 0 for a batch that never failed.
    version: 22,
    sql: `
      ALTER TABLE webhook_pending_batches ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhook_pending_batches ADD COLUMN retry_at INTEGER NOT NULL DEFAULT 0;
    `,
  },
];
