import type { Command } from 'commander';
import { createReel, listReels, MAX_REEL_CLIPS as MAX_CLIPS } from '../operations/clips.js';
import { nameArgument, uuidArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, usageError, type OutputOptions } from './output.js';

type Options = OutputOptions & EndpointOptions;

/** Comma-separated clip ids, in playing order. */
function clipListArgument(value: string): string[] {
  const ids = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0 || ids.length > MAX_CLIPS) throw usageError(`--clips must list 1-${MAX_CLIPS} clip ids, separated by commas (got "${value}")`);
  return ids.map((id) => uuidArgument('--clips', id));
}

/** `reels`: highlight reels, clips of one test joined into one video by the server. */
export function registerReels(program: Command): void {
  const reels = program.command('reels').description('highlight reels: clips of a test joined into one video (by a background job of the server)');

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
