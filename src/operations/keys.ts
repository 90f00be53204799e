import type { Static } from '@sinclair/typebox';
import { rotateSigningKey } from '../oauth/signing-keys.js';
import type { Actor } from '../store/store.js';
import type { OperationDeps } from './deps.js';
import { keyView, type KeyView, type RotatedKey } from './views.js';

/** Signing keys. Shared by `results-api keys ...` and the admin API. Private keys never leave the database. */

export async function listKeys(d: OperationDeps): Promise<Static<typeof KeyView>[]> {
  const now = d.clock.now();
  return (await d.store.signingKeys.list()).map((k) => keyView(k, now, d.config.tokenTtlSeconds * 1000));
}

/** A new signing key; the previous one stays published until every token it signed has expired. */
export async function rotateKey(d: OperationDeps, by: Actor): Promise<Static<typeof RotatedKey>> {
  const tokenTtlMs = d.config.tokenTtlSeconds * 1000;
  const before = (await d.store.signingKeys.list()).find((k) => k.retiredAt === null);
  const kid = await rotateSigningKey(d.store.signingKeys, d.clock, by);
  const after = await d.store.signingKeys.list();
  const now = d.clock.now();
  const previous = after.find((k) => k.kid === before?.kid);
  return { ...keyView(after.find((k) => k.kid === kid)!, now, tokenTtlMs), previous: previous ? keyView(previous, now, tokenTtlMs) : null };
}
