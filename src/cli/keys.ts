import type { Command } from 'commander';
import type { Static } from '@sinclair/typebox';
import { listKeys, rotateKey } from '../operations/keys.js';
import type { KeyView } from '../operations/views.js';
import { ADMIN_CLIENT_ID_OPTION, ADMIN_CLIENT_SECRET_OPTION, ENDPOINT_OPTION, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

type KeyJson = Static<typeof KeyView>;

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
    .option(...ENDPOINT_OPTION)
    .option(...ADMIN_CLIENT_ID_OPTION)
    .option(...ADMIN_CLIENT_SECRET_OPTION)
    .action(async (options: OutputOptions & EndpointOptions) => {
      const rotated = await perform(options, (rt, by) => rotateKey(rt, by), { method: 'POST', path: '/admin/api/keys/rotate' });
      const { previous, ...key } = rotated;
      emit(options, rotated, () =>
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
    .option(...ENDPOINT_OPTION)
    .option(...ADMIN_CLIENT_ID_OPTION)
    .option(...ADMIN_CLIENT_SECRET_OPTION)
    .action(async (options: OutputOptions & EndpointOptions) => {
      const list = await perform(options, (rt) => listKeys(rt), { method: 'GET', path: '/admin/api/keys' });
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
