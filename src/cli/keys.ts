import type { Command } from 'commander';
import { publishedUntil, rotateSigningKey } from '../oauth/signing-keys.js';
import type { SigningKey } from '../store/store.js';
import { withRuntime } from './context.js';
import { emit, isoTime, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

/**
 * A key as the operator sees it: never its private half. `published` means retired (no longer
 * signing) but still in the JWKS, because a token it signed may still be valid.
 */
function keyJson(key: SigningKey, now: number, tokenTtlMs: number) {
  const until = publishedUntil(key, tokenTtlMs);
  const state = key.retiredAt === null ? 'active' : now < until ? 'published' : 'expired';
  return {
    kid: key.kid,
    alg: key.alg,
    createdAt: isoTime(key.createdAt),
    retiredAt: isoTime(key.retiredAt),
    state,
    publishedUntil: Number.isFinite(until) ? isoTime(until) : null,
  } as const;
}

type KeyJson = ReturnType<typeof keyJson>;

const stateText = (k: KeyJson): string => (k.state === 'published' ? `published until ${k.publishedUntil}` : k.state);

/** How soon running servers notice: on their next request when they hear of it, else their refresh interval. */
const PICKED_UP =
  'Running servers sign with it from their next token request (at most 10 seconds later); ' +
  'tokens signed before keep working until they expire.';

/** `keys`: the keys access tokens are signed with. Private keys never leave the database. */
export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('signing keys of access tokens (private keys are never printed)');

  keys
    .command('rotate')
    .description('add a new signing key and sign with it; the previous key stays published until every token it signed has expired')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions) => {
      const { key, previous } = await withRuntime(async (rt, by) => {
        const tokenTtlMs = rt.config.tokenTtlSeconds * 1000;
        const before = (await rt.store.signingKeys.list()).find((k) => k.retiredAt === null);
        const kid = await rotateSigningKey(rt.store.signingKeys, rt.clock, by);
        const after = await rt.store.signingKeys.list();
        const now = rt.clock.now();
        const json = (k: SigningKey | undefined) => (k ? keyJson(k, now, tokenTtlMs) : null);
        return { key: json(after.find((k) => k.kid === kid))!, previous: json(after.find((k) => k.kid === before?.kid)) };
      });
      emit(options, { ...key, previous }, () =>
        [
          `Rotated the signing key: new tokens are signed with ${key.kid}.`,
          previous
            ? `The previous key ${previous.kid} stays published until ${previous.publishedUntil}, when every token it signed has expired.`
            : undefined,
          PICKED_UP,
        ]
          .filter((line) => line !== undefined)
          .join('\n'),
      );
    });

  keys
    .command('list')
    .description('list signing keys, newest first, with their state: active, published until <time>, or expired')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions) => {
      const list = await withRuntime(async (rt) => {
        const now = rt.clock.now();
        return (await rt.store.signingKeys.list()).map((k) => keyJson(k, now, rt.config.tokenTtlSeconds * 1000));
      });
      emit(options, list, () =>
        table(
          list,
          [
            { header: 'KID', value: (k) => k.kid },
            { header: 'ALG', value: (k) => k.alg },
            { header: 'CREATED', value: (k) => k.createdAt! },
            { header: 'RETIRED', value: (k) => k.retiredAt ?? '-' },
            { header: 'STATE', value: stateText },
          ],
          'no signing keys',
        ),
      );
    });
}
