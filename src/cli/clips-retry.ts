import type { Command } from 'commander';
import { retryClip } from '../operations/clips.js';
import { uuidArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';

/** `clips retry`: a clip in ERROR cut again, unless its range can no longer be cut (the refusal says why). */
export function registerClipsRetryCommand(clips: Command): void {
  endpointOptions(
    clips
      .command('retry')
      .description('cut a failed clip (status ERROR) again: its job starts a new set of attempts; refused, saying why, when its range cannot be cut')
      .requiredOption('--clip <uuid>', 'the clip')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: OutputOptions & EndpointOptions & { clip: string }) => {
    const clipId = uuidArgument('--clip', options.clip);
    const clip = await perform(options, (rt, by) => retryClip(rt, clipId, by), { method: 'POST', path: `/admin/api/clips/${clipId}/retry` });
    emit(options, clip, () => `retrying clip ${clip.clipUuid} of session ${clip.sessionId} (${clip.startMs}-${clip.endMs} ms); a running server cuts it`);
  });
}
