import type { Clock } from '../clock.js';
import { auditEventOf } from './rows.js';
import type { Database, Transaction } from './database.js';
import type { Actor, AuditEvent } from './store.js';

/** Every action the audit log records: `<noun>.<verb>`. */
export const AUDIT_ACTIONS = [
  'user.create',
  'user.disable',
  'user.enable',
  'credential.issue',
  'credential.rotate',
  'credential.retire_previous',
  'credential.revoke',
  'workspace.create',
  'member.add',
  'member.remove',
  'test.create',
  'test.plan_set',
  'sessions.import',
  'transcripts.import',
  'key.add',
  'token.revoke',
  'video.import',
  'video.attach',
  'admin.create',
  'admin.setup_link',
  'admin.setup',
  'admin.sign_in',
  'admin.sign_out',
  'admin.totp_enable',
  'admin.totp_reset',
  'admin.assign',
  'admin.unassign',
  'admin_client.create',
  'admin_client.revoke',
  'job.fail',
  'clip.create',
  'clip.retry',
  'reel.create',
  'reel.retry',
  'user.setup_link',
  'user.password_set',
  'user.sign_in',
  'user.sign_out',
  'user.totp_enable',
  'user.totp_reset',
  'app.create',
  'app.revoke',
  'app.authorize',
  'app.unauthorize',
  'grant.revoke',
  'guessing.alert',
  'webhook.create',
  'webhook.update',
  'webhook.enable',
  'webhook.disable',
  'webhook.delete',
  'webhook.rotate_secret',
  'webhook.test',
  'webhook.replay',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Which events to list; every filter is optional, and all given must hold. */
export interface AuditFilter {
  /** The newest this many events that pass the filter (default 1000). */
  limit?: number;
  /** At or after this time (epoch ms). */
  since?: number;
  /** An action (`credential.revoke`) or every action of a noun (`credential`). */
  action?: string;
  actor?: string;
  subject?: string;
}

const INSERT = `INSERT INTO audit_events (at, actor, action, subject, details)
                VALUES (@at, @actor, @action, @subject, @details)`;

/** Records a mutation inside its own transaction, so the entry exists exactly when the change does. */
export async function audit(
  tx: Transaction,
  clock: Clock,
  by: Actor,
  action: AuditAction,
  subject: string,
  details: Record<string, unknown> = {},
): Promise<void> {
  await tx.run(INSERT, { at: clock.now(), actor: by.actor, action, subject, details: JSON.stringify(details) });
}

export class AuditLog {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Records an event that is no mutation (a security alert), in a transaction of its own. */
  async record(by: Actor, action: AuditAction, subject: string, details: Record<string, unknown> = {}): Promise<void> {
    await this.db.write(null, (tx) => audit(tx, this.clock, by, action, subject, details));
  }

  /** The newest events that pass `filter`, oldest first. */
  async list(filter: AuditFilter = {}): Promise<AuditEvent[]> {
    const rows = await this.db.all(
      `SELECT id, at, actor, action, subject, details
         FROM (SELECT id, at, actor, action, subject, details FROM audit_events
                WHERE (CAST(@since AS BIGINT) IS NULL OR at >= @since)
                  AND (CAST(@action AS TEXT) IS NULL OR action = @action OR action LIKE @nounPrefix ESCAPE '!')
                  AND (CAST(@actor AS TEXT) IS NULL OR actor = @actor)
                  AND (CAST(@subject AS TEXT) IS NULL OR subject = @subject)
                ORDER BY id DESC LIMIT @limit) AS newest
        ORDER BY id`,
      {
        limit: filter.limit ?? 1000,
        since: filter.since ?? null,
        action: filter.action ?? null,
        nounPrefix: filter.action === undefined ? null : `${filter.action.replace(/[!%_]/g, '!$&')}.%`,
        actor: filter.actor ?? null,
        subject: filter.subject ?? null,
      },
    );
    return rows.map(auditEventOf);
  }
}
