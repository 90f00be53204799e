import type { Command } from 'commander';
import type { HighlightReel } from '../store/reels.js';
import { nameArgument, uuidArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { emit, isoTime, JSON_FLAG, JSON_FLAG_HELP, table, usageError, type OutputOptions } from './output.js';

const MAX_CLIPS = 100;

/** Comma-separated clip ids, in playing order. */
function clipListArgument(value: string): string[] {
  const ids = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0 || ids.length > MAX_CLIPS) throw usageError(`--clips must list 1-${MAX_CLIPS} clip ids, separated by commas (got "${value}")`);
  return ids.map((id) => uuidArgument('--clips', id));
}

const reelJson = (r: HighlightReel) => ({
  reelId: r.id,
  testId: r.testId,
  name: r.name,
  clipIds: r.clipIds,
  durationMs: r.durationMs,
  status: r.status,
  lastError: r.lastError,
  createdAt: isoTime(r.createdAt),
});

/** `reels`: highlight reels, clips of one test joined into one video by the server. */
export function registerReels(program: Command): void {
  const reels = program.command('reels').description('highlight reels: clips of a test joined into one video (by a background job of the server)');

  reels
    .command('create')
    .description('make a highlight reel of clips of the test\'s sessions; a running server joins them (GENERATING, then GENERATED)')
    .requiredOption('--test <uuid>', 'the test')
    .requiredOption('--name <name>', 'its name')
    .requiredOption('--clips <ids>', `clip ids in playing order, separated by commas (1-${MAX_CLIPS})`)
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { test: string; name: string; clips: string }) => {
      const testId = uuidArgument('--test', options.test);
      const name = nameArgument('--name', options.name);
      const clipIds = clipListArgument(options.clips);
      const reel = await withRuntime((rt, by) => rt.store.reels.createReel({ testId, name, clipIds }, by));
      emit(options, reelJson(reel), () => `created highlight reel ${reel.id} of ${clipIds.length} clips (${reel.durationMs} ms); a running server makes it`);
    });

  reels
    .command('list')
    .description('the highlight reels of a test, with their status')
    .requiredOption('--test <uuid>', 'the test')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { test: string }) => {
      const testId = uuidArgument('--test', options.test);
      const list = await withRuntime((rt) => rt.store.reels.listReels(testId));
      emit(options, list.map(reelJson), () =>
        table(
          list,
          [
            { header: 'REEL', value: (r) => r.id },
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
