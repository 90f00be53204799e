import type { Clock } from '../clock.js';
import { auditEventOf } from './rows.js';
import type { Database, Transaction } from './database.js';
import type { Actor, AuditEvent } from './store.js';

/** Every action the audit log records. */
export type AuditAction =
  | 'user.create'
  | 'user.disable'
  | 'user.enable'
  | 'credential.issue'
  | 'credential.rotate'
  | 'credential.retire_previous'
  | 'credential.revoke'
  | 'workspace.create'
  | 'member.add'
  | 'member.remove'
  | 'test.create'
  | 'test.plan_set'
  | 'sessions.import'
  | 'key.add'
  | 'token.revoke';

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

  /** The newest `limit` events, oldest first. */
  async list(options: { limit?: number } = {}): Promise<AuditEvent[]> {
    const rows = await this.db.all(
      `SELECT id, at, actor, action, subject, details
         FROM (SELECT id, at, actor, action, subject, details FROM audit_events ORDER BY id DESC LIMIT @limit) AS newest
        ORDER BY id`,
      { limit: options.limit ?? 1000 },
    );
    return rows.map(auditEventOf);
  }
}
