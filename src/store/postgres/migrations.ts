import { addStudyFields, COUNT_STORED_SESSIONS_BY_STATUS } from '../migration-steps.js';

/**
 * PostgreSQL schema, one entry per version; the same tables as sqlite/migrations.ts. Applied in
 * order in one transaction under an advisory lock; never edit a released entry, add a new one.
 *
 * Times are BIGINT epoch milliseconds. Text keys use COLLATE "C" so ORDER BY matches SQLite's
 * byte order whatever the database's default collation (e.g. en_US ignores '-' when sorting).
 */
export const postgresMigrations: readonly { version: number; sql: string }[] = [
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
];
