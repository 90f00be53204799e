import type { Command } from 'commander';
import { createReel, MAX_REEL_CLIPS as MAX_CLIPS } from '../operations/clips.js';
import { nameArgument, uuidArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, usageError, type OutputOptions } from './output.js';

type Options = OutputOptions & EndpointOptions;

/** Comma-separated clip ids, in playing order. */
function clipListArgument(value: string): string[] {
  const ids = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0 || ids.length > MAX_CLIPS) throw usageError(`--clips must list 1-${MAX_CLIPS} clip ids, separated by commas (got "${value}")`);
  return ids.map((id) => uuidArgument('--clips', id));
}

/** `reels create`: a highlight reel of clips of a test's sessions, joined by a running server. */
export function registerReelsCreateCommand(reels: Command): void {
  endpointOptions(
    reels
      .command('create')
      .description('make a highlight reel of clips of the test\'s sessions; a running server joins them (GENERATING, then GENERATED)')
      .requiredOption('--test <uuid>', 'the test')
      .requiredOption('--name <name>', 'its name')
      .requiredOption('--clips <ids>', `clip ids in playing order, separated by commas (1-${MAX_CLIPS})`)
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { test: string; name: string; clips: string }) => {
    const testId = uuidArgument('--test', options.test);
    const name = nameArgument('--name', options.name);
    const clipIds = clipListArgument(options.clips);
    const reel = await perform(options, (rt, by) => createReel(rt, { testId, name, clipIds }, by), {
      method: 'POST',
      path: `/admin/api/tests/${testId}/reels`,
      body: { name, clipIds },
    });
    emit(options, reel, () => `created highlight reel ${reel.reelId} of ${clipIds.length} clips (${reel.durationMs} ms); a running server makes it`);
  });
}
