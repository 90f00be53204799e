import type { Command } from 'commander';
import { createClip, MAX_CLIP_MS as MAX_MS, MIN_CLIP_MS } from '../operations/clips.js';
import { CLIP_SENTIMENTS, type ClipSentiment } from '../store/clips.js';
import { nameArgument, uuidArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, usageError, type OutputOptions } from './output.js';

/** Milliseconds from the start of the video: a whole number, 0 up to 24 hours. */
function millisecondsArgument(option: string, value: string): number {
  const text = value.trim();
  const ms = /^\d{1,8}$/.test(text) ? Number(text) : NaN;
  if (!(ms >= 0 && ms <= MAX_MS)) throw usageError(`${option} must be whole milliseconds from 0 to ${MAX_MS} (got "${value}")`);
  return ms;
}

/** `--sentiment`: one of the real v1 document's two values. */
function sentimentArgument(value: string | undefined): ClipSentiment | undefined {
  if (value === undefined) return undefined;
  const sentiment = CLIP_SENTIMENTS.find((s) => s === value.trim().toLowerCase());
  if (!sentiment) throw usageError(`--sentiment must be ${CLIP_SENTIMENTS.join(' or ')} (got "${value}")`);
  return sentiment;
}

interface CreateOptions extends OutputOptions, EndpointOptions {
  session: string;
  startMs: string;
  endMs: string;
  name: string;
  note?: string;
  sentiment?: string;
}

/** `clips create`: a clip of a session video, cut by a running server. */
export function registerClipsCreateCommand(clips: Command): void {
  endpointOptions(
    clips
      .command('create')
      .description('make a clip of a session video; a running server cuts it (its status: GENERATING, then GENERATED)')
      .requiredOption('--session <uuid>', 'the session whose video it is cut from')
      .requiredOption('--start-ms <ms>', "where it starts, in milliseconds from the start of the video (at or before the video's last frame)")
      .requiredOption('--end-ms <ms>', `where it ends: within the video, at least ${MIN_CLIP_MS} ms after --start-ms`)
      .requiredOption('--name <name>', 'its name')
      .option('--note <text>', 'a note (the API\'s clip description)')
      .option('--sentiment <sentiment>', `what it shows: ${CLIP_SENTIMENTS.join(' or ')} (the Legacy v1 sentimentTag)`)
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: CreateOptions) => {
    const sessionId = uuidArgument('--session', options.session);
    const startMs = millisecondsArgument('--start-ms', options.startMs);
    const endMs = millisecondsArgument('--end-ms', options.endMs);
    if (endMs <= startMs) throw usageError(`--end-ms (${endMs}) must be after --start-ms (${startMs})`);
    const name = nameArgument('--name', options.name);
    const note = options.note === undefined ? undefined : nameArgument('--note', options.note, 2000);
    const sentiment = sentimentArgument(options.sentiment);
    const clip = await perform(options, (rt, by) => createClip(rt, { sessionId, startMs, endMs, name, description: note, sentiment }, by), {
      method: 'POST',
      path: `/admin/api/sessions/${sessionId}/clips`,
      body: { startMs, endMs, name, ...(note === undefined ? {} : { description: note }), ...(sentiment === undefined ? {} : { sentiment }) },
    });
    emit(options, clip, () => `created clip ${clip.clipUuid} of session ${sessionId} (${startMs}-${endMs} ms); a running server cuts it`);
  });
}
