import { addStudyFields, COUNT_STORED_SESSIONS_BY_STATUS, PLAN_IDS_TO_UUIDS, type Migration } from '../migration-steps.js';

/**
 * PostgreSQL schema, one entry per version; the same tables as sqlite/migrations.ts. Applied in
 * order in one transaction under an advisory lock; never edit a released entry, add a new one.
 *
 * Times are BIGINT epoch milliseconds. Text keys use COLLATE "C" so ORDER BY matches SQLite's
 * byte order whatever the database's default collation (e.g. en_US ignores '-' when sorting).
 */
export const postgresMigrations: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE settings (key TEXT COLLATE "C" PRIMARY KEY, value TEXT NOT NULL);

      CREATE TABLE users (
        id TEXT COLLATE "C" PRIMARY KEY,
        email TEXT NOT NULL,
        email_key TEXT COLLATE "C" NOT NULL UNIQUE,
        status TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
        created_at BIGINT NOT NULL
      );

      CREATE TABLE credentials (
        client_id TEXT COLLATE "C" PRIMARY KEY,
        user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id),
        created_at BIGINT NOT NULL,
        last_used_at BIGINT,
        revoked_at BIGINT
      );
      CREATE INDEX credentials_by_user ON credentials (user_id);
      -- Backstop for "one active credential per user" when two issues race.
      CREATE UNIQUE INDEX credentials_one_active_per_user ON credentials (user_id) WHERE revoked_at IS NULL;

      CREATE TABLE credential_secrets (
        client_id TEXT COLLATE "C" NOT NULL REFERENCES credentials (client_id),
        hash TEXT COLLATE "C" NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT,
        PRIMARY KEY (client_id, hash)
      );

      CREATE TABLE workspaces (
        id TEXT COLLATE "C" PRIMARY KEY,
        name TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );

      CREATE TABLE memberships (
        workspace_id TEXT COLLATE "C" NOT NULL REFERENCES workspaces (id),
        email_key TEXT COLLATE "C" NOT NULL,
        email TEXT NOT NULL,
        added_at BIGINT NOT NULL,
        PRIMARY KEY (workspace_id, email_key)
      );
      CREATE INDEX memberships_by_email ON memberships (email_key, workspace_id);

      CREATE TABLE tests (
        id TEXT COLLATE "C" PRIMARY KEY,
        workspace_id TEXT COLLATE "C" NOT NULL REFERENCES workspaces (id),
        title TEXT NOT NULL,
        product_type TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        session_count BIGINT NOT NULL DEFAULT 0
      );
      CREATE INDEX tests_by_workspace ON tests (workspace_id, created_at);

      -- The primary key is the page order of a test (scanned backwards for DESC), so a page is
      -- one index range read.
      CREATE TABLE sessions (
        test_id TEXT COLLATE "C" NOT NULL REFERENCES tests (id),
        start_time BIGINT NOT NULL,
        session_id TEXT COLLATE "C" NOT NULL,
        audience_id TEXT,
        status TEXT NOT NULL,
        finish_time BIGINT,
        PRIMARY KEY (test_id, start_time, session_id),
        CONSTRAINT sessions_by_id UNIQUE (session_id)
      );

      CREATE TABLE signing_keys (
        kid TEXT COLLATE "C" PRIMARY KEY,
        alg TEXT NOT NULL,
        private_key_pem TEXT NOT NULL,
        public_jwk JSONB NOT NULL,
        created_at BIGINT NOT NULL,
        retired_at BIGINT
      );
      -- At most one key signs at a time.
      CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys ((retired_at IS NULL)) WHERE retired_at IS NULL;

      CREATE TABLE revoked_tokens (
        jti TEXT COLLATE "C" PRIMARY KEY,
        expires_at BIGINT NOT NULL
      );

      CREATE TABLE audit_events (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at BIGINT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        subject TEXT NOT NULL,
        details JSONB NOT NULL
      );
    `,
  },
  {
    version: 2,
    sql: `
      -- The API lists completed sessions only: this index keeps a page of one status one index
      -- range read (and the anchored deep-page seek flat however many sessions of other statuses
      -- lie in between), as the primary key is for all; it carries the other columns a page reads.
      CREATE INDEX sessions_by_status ON sessions (test_id, status, start_time, session_id) INCLUDE (audience_id, finish_time);

      -- How many sessions of each status a test holds, rewritten by every import in its own
      -- transaction, so a page's totalCount is one row read whatever the test's size.
      CREATE TABLE session_counts (
        test_id TEXT COLLATE "C" NOT NULL REFERENCES tests (id),
        status TEXT COLLATE "C" NOT NULL,
        session_count BIGINT NOT NULL,
        PRIMARY KEY (test_id, status)
      );
      ${COUNT_STORED_SESSIONS_BY_STATUS}
    `,
  },
  {
    // The Legacy (v1) family; see sqlite/migrations.ts version 3.
    version: 3,
    sql: addStudyFields({ epochMs: 'BIGINT', json: 'JSONB' }),
  },
  {
    // Session details; see sqlite/migrations.ts version 4. Text, not jsonb: served as stored.
    version: 4,
    sql: `
      CREATE TABLE session_details (
        session_id TEXT COLLATE "C" PRIMARY KEY,
        test_id TEXT COLLATE "C" NOT NULL REFERENCES tests (id),
        scoring TEXT NOT NULL,
        details TEXT NOT NULL
      );
      CREATE INDEX session_details_by_test ON session_details (test_id, session_id);
    `,
  },
  {
    // Session transcripts; see sqlite/migrations.ts version 5.
    version: 5,
    sql: `
      CREATE TABLE transcripts (
        session_id TEXT COLLATE "C" PRIMARY KEY,
        vtt TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        imported_at BIGINT NOT NULL
      );
    `,
  },
  {
    // Session videos; see sqlite/migrations.ts version 6.
    version: 6,
    sql: `
      CREATE TABLE videos (
        session_id TEXT COLLATE "C" PRIMARY KEY,
        test_id TEXT COLLATE "C" NOT NULL REFERENCES tests (id),
        object_key TEXT NOT NULL,
        poster_key TEXT,
        content_sha256 TEXT NOT NULL,
        content_type TEXT NOT NULL,
        size_bytes BIGINT NOT NULL,
        duration_ms BIGINT NOT NULL,
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        has_audio SMALLINT NOT NULL CHECK (has_audio IN (0, 1)),
        regions JSONB NOT NULL,
        imported_at BIGINT NOT NULL
      );
      CREATE INDEX videos_by_test ON videos (test_id, session_id);
    `,
  },
  {
    // Background jobs; see sqlite/migrations.ts version 7.
    version: 7,
    sql: `
      CREATE TABLE jobs (
        id TEXT COLLATE "C" PRIMARY KEY,
        kind TEXT NOT NULL,
        subject TEXT COLLATE "C" NOT NULL,
        payload JSONB NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'error')),
        attempts INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL,
        run_at BIGINT NOT NULL,
        lease_owner TEXT,
        lease_until BIGINT,
        last_error TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX jobs_due ON jobs (state, run_at);
      CREATE INDEX jobs_by_subject ON jobs (subject);

      CREATE TABLE clips (
        id TEXT COLLATE "C" PRIMARY KEY,
        session_id TEXT COLLATE "C" NOT NULL,
        test_id TEXT COLLATE "C" NOT NULL REFERENCES tests (id),
        name TEXT NOT NULL,
        description TEXT,
        start_ms BIGINT NOT NULL CHECK (start_ms >= 0),
        end_ms BIGINT NOT NULL CHECK (end_ms > start_ms),
        layout JSONB NOT NULL,
        job_id TEXT COLLATE "C" NOT NULL REFERENCES jobs (id),
        created_at BIGINT NOT NULL
      );
      CREATE INDEX clips_by_session ON clips (session_id, start_ms, id);
      CREATE INDEX clips_by_test ON clips (test_id);

      CREATE TABLE highlight_reels (
        id TEXT COLLATE "C" PRIMARY KEY,
        test_id TEXT COLLATE "C" NOT NULL REFERENCES tests (id),
        name TEXT NOT NULL,
        -- The legacy v1 family finds a reel by this token (highlightreel/{token}).
        token TEXT COLLATE "C" NOT NULL UNIQUE,
        clip_ids JSONB NOT NULL,
        duration_ms BIGINT NOT NULL,
        job_id TEXT COLLATE "C" NOT NULL REFERENCES jobs (id),
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX highlight_reels_by_test ON highlight_reels (test_id, created_at, id);
    `,
  },
  {
    // Admin accounts; see sqlite/migrations.ts version 8.
    version: 8,
    sql: `
      CREATE TABLE admins (
        id TEXT COLLATE "C" PRIMARY KEY,
        email TEXT NOT NULL,
        email_key TEXT COLLATE "C" NOT NULL UNIQUE,
        role TEXT NOT NULL CHECK (role IN ('operator', 'support', 'account-admin')),
        password_hash TEXT,
        totp_secret TEXT,
        totp_pending_secret TEXT,
        totp_last_step BIGINT,
        setup_token_hash TEXT COLLATE "C" UNIQUE,
        setup_expires_at BIGINT,
        created_at BIGINT NOT NULL
      );

      CREATE TABLE admin_sessions (
        id_hash TEXT COLLATE "C" PRIMARY KEY,
        admin_id TEXT COLLATE "C" NOT NULL REFERENCES admins (id),
        csrf_token TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX admin_sessions_by_admin ON admin_sessions (admin_id);

      CREATE TABLE admin_workspaces (
        admin_id TEXT COLLATE "C" NOT NULL REFERENCES admins (id),
        workspace_id TEXT COLLATE "C" NOT NULL REFERENCES workspaces (id),
        assigned_at BIGINT NOT NULL,
        PRIMARY KEY (admin_id, workspace_id)
      );

      -- Admin API clients (client credentials): each acts as the admin it belongs to.
      CREATE TABLE admin_clients (
        client_id TEXT COLLATE "C" PRIMARY KEY,
        admin_id TEXT COLLATE "C" NOT NULL REFERENCES admins (id),
        secret_hash TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        revoked_at BIGINT
      );
      CREATE INDEX admin_clients_by_admin ON admin_clients (admin_id);
    `,
  },
  {
    // Transcript cues; see sqlite/migrations.ts version 10 (this engine never had a version 9).
    version: 10,
    sql: `
      CREATE TABLE transcript_cues (
        session_id TEXT COLLATE "C" PRIMARY KEY,
        cue_count INTEGER
      );
      CREATE INDEX transcript_cues_to_store ON transcript_cues (session_id) WHERE cue_count IS NULL;
      INSERT INTO transcript_cues (session_id, cue_count) SELECT session_id, NULL FROM transcripts;
      CREATE TABLE transcript_cue_pages (
        session_id TEXT COLLATE "C" NOT NULL,
        page INTEGER NOT NULL,
        cues TEXT NOT NULL,
        PRIMARY KEY (session_id, page)
      );
    `,
  },
  {
    // When each video's last frame starts; see sqlite/migrations.ts version 11.
    version: 11,
    sql: `ALTER TABLE videos ADD COLUMN last_frame_ms BIGINT;`,
  },
  {
    // Plan and task group ids become UUIDs; see sqlite/migrations.ts version 12.
    version: 12,
    sql: '',
    rewrites: PLAN_IDS_TO_UUIDS,
  },
  {
    // A clip's sentiment; see sqlite/migrations.ts version 13.
    version: 13,
    sql: `ALTER TABLE clips ADD COLUMN sentiment TEXT CHECK (sentiment IN ('positive', 'negative'));`,
  },
  {
    // API users sign in and authorize apps; see sqlite/migrations.ts version 14.
    version: 14,
    sql: `
      ALTER TABLE users ADD COLUMN password_hash TEXT;
      ALTER TABLE users ADD COLUMN totp_secret TEXT;
      ALTER TABLE users ADD COLUMN totp_pending_secret TEXT;
      ALTER TABLE users ADD COLUMN totp_last_step BIGINT;
      ALTER TABLE users ADD COLUMN setup_token_hash TEXT;
      ALTER TABLE users ADD COLUMN setup_expires_at BIGINT;
      CREATE UNIQUE INDEX users_by_setup_token ON users (setup_token_hash);

      CREATE TABLE user_sessions (
        id_hash TEXT COLLATE "C" PRIMARY KEY,
        user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id),
        csrf_token TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX user_sessions_by_user ON user_sessions (user_id);

      -- Partner apps: registered by support staff, by dynamic registration (RFC 7591), or
      -- read from a client ID metadata document (client_id is then its https URL).
      CREATE TABLE apps (
        client_id TEXT COLLATE "C" PRIMARY KEY,
        name TEXT NOT NULL,
        client_type TEXT NOT NULL CHECK (client_type IN ('confidential', 'public')),
        origin TEXT NOT NULL CHECK (origin IN ('registered', 'dynamic', 'metadata')),
        redirect_uris TEXT NOT NULL,
        scopes TEXT NOT NULL,
        secret_hash TEXT,
        created_at BIGINT NOT NULL,
        fetched_at BIGINT,
        revoked_at BIGINT
      );

      -- What a user approved for an app: one row per authorization (code exchange), the family
      -- of its refresh tokens; revoking it ends every token of the family.
      CREATE TABLE app_grants (
        id TEXT COLLATE "C" PRIMARY KEY,
        user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id),
        client_id TEXT COLLATE "C" NOT NULL,
        scopes TEXT NOT NULL,
        resource TEXT,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT,
        revoked_at BIGINT
      );
      CREATE INDEX app_grants_by_user ON app_grants (user_id, client_id);

      CREATE TABLE authorization_codes (
        code_hash TEXT COLLATE "C" PRIMARY KEY,
        client_id TEXT COLLATE "C" NOT NULL,
        user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id),
        redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        scopes TEXT NOT NULL,
        resource TEXT,
        expires_at BIGINT NOT NULL,
        used_at BIGINT,
        grant_id TEXT COLLATE "C"
      );

      CREATE TABLE refresh_tokens (
        token_hash TEXT COLLATE "C" PRIMARY KEY,
        grant_id TEXT COLLATE "C" NOT NULL REFERENCES app_grants (id),
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at BIGINT
      );
      CREATE INDEX refresh_tokens_by_grant ON refresh_tokens (grant_id);
    `,
  },
  {
    // Webhooks; see sqlite/migrations.ts version 15.
    version: 15,
    sql: `
      -- Webhook subscriptions (issue 35): each belongs to an API user and the credential that
      -- made it (a revoked credential's subscriptions deliver nothing more). secret signs
      -- deliveries; previous_secret keeps signing until its expiry after a rotation.
      CREATE TABLE webhook_subscriptions (
        id TEXT COLLATE "C" PRIMARY KEY,
        user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id),
        client_id TEXT COLLATE "C" NOT NULL REFERENCES credentials (client_id),
        url TEXT NOT NULL,
        description TEXT,
        test_id TEXT COLLATE "C",
        workspace_id TEXT COLLATE "C",
        secret TEXT NOT NULL,
        previous_secret TEXT,
        previous_secret_expires_at BIGINT,
        disabled_at BIGINT,
        disabled_reason TEXT,
        -- The first failed delivery since the last success: three days of failure disable it.
        failing_since BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX webhook_subscriptions_by_user ON webhook_subscriptions (user_id, created_at);

      -- Which event types each subscription wants: what an event's fan-out joins on.
      CREATE TABLE webhook_subscription_events (
        type TEXT COLLATE "C" NOT NULL,
        subscription_id TEXT COLLATE "C" NOT NULL REFERENCES webhook_subscriptions (id),
        PRIMARY KEY (type, subscription_id)
      );

      -- The outbox: events written in the transaction of the change that causes them (only
      -- when some subscription wants them). once_key makes an event happen once (a session's
      -- first completion). data: JSON ids in the API's names; links are added when sent.
      CREATE TABLE webhook_events (
        id TEXT COLLATE "C" PRIMARY KEY,
        type TEXT NOT NULL,
        once_key TEXT COLLATE "C" UNIQUE,
        test_id TEXT COLLATE "C",
        workspace_id TEXT COLLATE "C",
        data TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );

      -- One delivery of an event to a subscription, claimed under a lease as jobs are; its
      -- event id is the webhook-id of every attempt.
      CREATE TABLE webhook_deliveries (
        subscription_id TEXT COLLATE "C" NOT NULL REFERENCES webhook_subscriptions (id),
        event_id TEXT COLLATE "C" NOT NULL REFERENCES webhook_events (id),
        status TEXT NOT NULL CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed', 'skipped')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at BIGINT NOT NULL,
        lease_owner TEXT,
        lease_until BIGINT,
        response_code INTEGER,
        duration_ms INTEGER,
        last_error TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (subscription_id, event_id)
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
      CREATE INDEX webhook_deliveries_log ON webhook_deliveries (subscription_id, created_at);
    `,
  },
  {
    // Full-text search; see sqlite/migrations.ts version 16. Here the index is a tsvector column
    // (English stemming, generated from the text in the writer's transaction) under GIN.
    version: 16,
    sql: `
      CREATE TABLE search_entries (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        session_id TEXT COLLATE "C" NOT NULL,
        test_id TEXT COLLATE "C" NOT NULL,
        kind TEXT NOT NULL,
        task_id TEXT,
        start_ms BIGINT,
        end_ms BIGINT,
        speaker TEXT,
        text TEXT NOT NULL,
        document tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED
      );
      CREATE INDEX search_entries_by_session ON search_entries (session_id, kind);
      CREATE INDEX search_entries_document ON search_entries USING GIN (document);
      CREATE TABLE search_backlog (session_id TEXT COLLATE "C" PRIMARY KEY);
      INSERT INTO search_backlog (session_id) SELECT session_id FROM transcripts UNION SELECT session_id FROM session_details;
    `,
  },
  {
    // Shared video objects; see sqlite/migrations.ts version 17.
    version: 17,
    sql: `
      CREATE INDEX videos_by_object ON videos (object_key);
      CREATE INDEX videos_by_poster ON videos (poster_key);
    `,
  },
  {
    // Unread index of refresh tokens by grant; see sqlite/migrations.ts version 18.
    version: 18,
    sql: `
      DROP INDEX refresh_tokens_by_grant;
    `,
  },
  {
    // A search within one test intersects in the index; see sqlite/migrations.ts version 19.
    // Here the test is a lexeme of the document ('#' and the test id: no query word, letters
    // and digits only, can be it), added without a position so ts_rank is unchanged.
    version: 19,
    sql: `
      DROP INDEX search_entries_document;
      ALTER TABLE search_entries DROP COLUMN document;
      ALTER TABLE search_entries ADD COLUMN document tsvector
        GENERATED ALWAYS AS (to_tsvector('english', text) || array_to_tsvector(ARRAY['#' || test_id])) STORED;
      CREATE INDEX search_entries_document ON search_entries USING GIN (document);
    `,
  },
  {
    // The import's outbox as batches; see sqlite/migrations.ts version 20 (an identity never
    // hands out an id twice). session_ids is stored out of line uncompressed: a batch lives
    // until its expansion, and compressing its ~37 KB cost the import more than writing it
    // (240 against 100 ms for 100,000 sessions).
    version: 20,
    sql: `
      CREATE TABLE webhook_pending_batches (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        type TEXT NOT NULL,
        test_id TEXT COLLATE "C" NOT NULL,
        workspace_id TEXT COLLATE "C",
        session_ids TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      ALTER TABLE webhook_pending_batches ALTER COLUMN session_ids SET STORAGE EXTERNAL;
    `,
  },
  {
    // Batches by key range; see sqlite/migrations.ts version 21.
    version: 21,
    sql: `
      ALTER TABLE webhook_pending_batches ALTER COLUMN session_ids DROP NOT NULL,
        ADD COLUMN key_range TEXT,
        ADD CONSTRAINT webhook_pending_batches_names_sessions CHECK ((session_ids IS NULL) <> (key_range IS NULL));
    `,
  },
  {
    // Failing batches set aside for a while; see sqlite/migrations.ts version 22.
    version: 22,
    sql: `
      ALTER TABLE webhook_pending_batches ADD COLUMN failures INTEGER NOT NULL DEFAULT 0,
        ADD COLUMN retry_at BIGINT NOT NULL DEFAULT 0;
    `,
  },
];
