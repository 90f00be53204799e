import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import type { Database } from './database.js';
import { signingKeyOf } from './rows.js';
import type { Actor, SigningKey } from './store.js';

/** The authorization servers' signing keys: one active, the retired ones kept for verification. */
export class SigningKeyRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Newest first. */
  async list(): Promise<SigningKey[]> {
    const rows = await this.db.all(
      'SELECT kid, private_key_pem, public_jwk, created_at, retired_at FROM signing_keys ORDER BY created_at DESC, kid',
    );
    return rows.map(signingKeyOf);
  }

  /** Adds `key` as the signing key and retires the previous one, in one transaction. */
  add(key: Omit<SigningKey, 'retiredAt'>, by: Actor): Promise<void> {
    return this.db.write({ topic: 'keys' }, async (tx) => {
      // Rotations take turns (readers are not blocked), so two racing rotations cannot both leave their key active.
      await tx.lock('signing-keys');
      await tx.run('UPDATE signing_keys SET retired_at = @now WHERE retired_at IS NULL', { now: key.createdAt });
      await tx.run(
        `INSERT INTO signing_keys (kid, alg, private_key_pem, public_jwk, created_at)
         VALUES (@kid, @alg, @privateKeyPem, @publicJwk, @createdAt)`,
        { ...key, publicJwk: JSON.stringify(key.publicJwk) },
      );
      await audit(tx, this.clock, by, 'key.add', key.kid);
    });
  }
}
