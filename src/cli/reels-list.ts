import type { Command } from 'commander';
import { listReels } from '../operations/clips.js';
import { uuidArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

type Options = OutputOptions & EndpointOptions;

/** `reels list`: the highlight reels of a test, with their status and the token the Legacy v1 operation finds each by. */
export function registerReelsListCommand(reels: Command): void {
  endpointOptions(
    reels
      .command('list')
      .description('the highlight reels of a test, with their status')
      .requiredOption('--test <uuid>', 'the test')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { test: string }) => {
    const testId = uuidArgument('--test', options.test);
    const list = await perform(options, (rt) => listReels(rt, testId), { method: 'GET', path: `/admin/api/tests/${testId}/reels` });
    emit(options, list, () =>
      table(
        list,
        [
          { header: 'REEL', value: (r) => r.reelId },
          { header: 'TOKEN', value: (r) => r.token },
          { header: 'CLIPS', value: (r) => String(r.clipIds.length) },
          { header: 'DURATION_MS', value: (r) => String(r.durationMs) },
          { header: 'STATUS', value: (r) => r.status },
          { header: 'NAME', value: (r) => r.name },
        ],
        'no highlight reels',
      ),
    );
  });
}
