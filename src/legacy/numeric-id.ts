import { createHash } from 'node:crypto';

/**
 * The numeric id the Legacy (v1) family shows beside a uuid (a workspace's `id`, a session's
 * `sessionId`, a highlight reel's `id`), where the real service has a database id of its own.
 * Derived from the uuid, not stored: the same on every restart, process and database (a copy
 * restored into PostgreSQL from SQLite shows the same numbers), and never a uuid. 52 bits of
 * SHA-256 make a positive safe integer; two of a million ids collide with a chance of about
 * one in ten thousand, and nothing is found by these ids (only shown), so a collision confuses
 * no lookup.
 */
export function legacyNumericId(uuid: string): number {
  const digest = createHash('sha256').update(uuid.toLowerCase()).digest();
  // 6 bytes (48 bits) read whole, then 4 more bits: 52 bits below Number.MAX_SAFE_INTEGER.
  return digest.readUIntBE(0, 6) * 16 + (digest[6]! >> 4) + 1;
}
