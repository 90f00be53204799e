import type { Command } from 'commander';
import { listClips } from '../operations/clips.js';
import { uuidArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

/** `clips list`: the clips of a session video, with their status. */
export function registerClipsListCommand(clips: Command): void {
  endpointOptions(
    clips
      .command('list')
      .description('the clips of a session video, with their status')
      .requiredOption('--session <uuid>', 'the session')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: OutputOptions & EndpointOptions & { session: string }) => {
    const sessionId = uuidArgument('--session', options.session);
    const list = await perform(options, (rt) => listClips(rt, sessionId), { method: 'GET', path: `/admin/api/sessions/${sessionId}/clips` });
    emit(options, list, () =>
      table(
        list,
        [
          { header: 'CLIP', value: (c) => c.clipUuid },
          { header: 'START_MS', value: (c) => String(c.startMs) },
          { header: 'END_MS', value: (c) => String(c.endMs) },
          { header: 'STATUS', value: (c) => c.status },
          { header: 'NAME', value: (c) => c.name },
        ],
        'no clips',
      ),
    );
  });
}
