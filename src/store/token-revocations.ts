import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import type { Database } from './database.js';
import type { Actor } from './store.js';

/** RFC 7009: access tokens revoked before they expire, remembered until they would have expired anyway. */
export class TokenRevocationRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  revoke(jti: string, expiresAt: number, by: Actor): Promise<void> {
    return this.db.write({ topic: 'access' }, async (tx) => {
      await tx.run('DELETE FROM revoked_tokens WHERE expires_at <= @now', { now: this.clock.now() });
      const inserted = await tx.run(
        'INSERT INTO revoked_tokens (jti, expires_at) VALUES (@jti, @expiresAt) ON CONFLICT (jti) DO NOTHING',
        { jti, expiresAt },
      );
      if (inserted > 0) await audit(tx, this.clock, by, 'token.revoke', jti);
    });
  }

  async isRevoked(jti: string, now: number): Promise<boolean> {
    return !!(await this.db.one('SELECT 1 AS found FROM revoked_tokens WHERE jti = @jti AND expires_at > @now', { jti, now }));
  }
}
