import type { Command } from 'commander';
import { retryReel } from '../operations/clips.js';
import { uuidArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';

/** `reels retry`: a highlight reel in ERROR made again, unless one of its clips can no longer be cut (the refusal says which). */
export function registerReelsRetryCommand(reels: Command): void {
  endpointOptions(
    reels
      .command('retry')
      .description('make a failed highlight reel (status ERROR) again: its job starts a new set of attempts; refused, saying why, when a clip of it cannot be cut')
      .requiredOption('--reel <uuid>', 'the highlight reel')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: OutputOptions & EndpointOptions & { reel: string }) => {
    const reelId = uuidArgument('--reel', options.reel);
    const reel = await perform(options, (rt, by) => retryReel(rt, reelId, by), { method: 'POST', path: `/admin/api/reels/${reelId}/retry` });
    emit(options, reel, () => `retrying highlight reel ${reel.reelId} of ${reel.clipIds.length} clips; a running server makes it`);
  });
}
