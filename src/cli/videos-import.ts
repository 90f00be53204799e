import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { systemClock } from '../clock.js';
import { NotAPlayableVideoError } from '../media/ffmpeg/probe-video.js';
import { MediaToolError } from '../media/ffmpeg/run-tool.js';
import { importVideo, type VideoImportDeps, type VideoImportResult } from '../media/import-video.js';
import { StoreConflictError } from '../store/conflicts.js';
import type { Actor } from '../store/store.js';
import { isUuid, uuidKey } from '../store/uuid.js';
import { uuidArgument } from './arguments.js';
import { cliActor, loadCliConfig, warnOnceIfRedisDown } from './context.js';
import { CliError, emit, JSON_FLAG, JSON_FLAG_HELP, usageError, type OutputOptions } from './output.js';

type ImportOptions = OutputOptions & { session?: string; test?: string };

/** One file's fate. */
interface FileOutcome {
  file: string;
  sessionId: string | null;
  outcome: VideoImportResult['outcome'] | 'refused';
  error?: string;
  durationMs?: number;
  width?: number;
  height?: number;
  hasAudio?: boolean;
}

/** `<sessionId>.<ext>`: the names a test's folder of videos holds. */
const SESSION_FILE = /^([0-9a-fA-F-]{36})\.[A-Za-z0-9]{1,8}$/;

/**
 * `videos import`: one file as a session's video, or a folder of `<sessionId>.<ext>` files
 * for a test. Each file is probed (a truncated file or one that is not a video is refused
 * with the reason), stored streaming in the media storage (MEDIA_URL) with a poster frame,
 * and recorded; importing the same bytes again changes nothing.
 */
export function registerVideosImportCommand(videos: Command): void {
  videos
    .command('import')
    .description(
      "import a session's video (--session S FILE), or a folder of <sessionId>.<ext> videos for a test (--test T DIR); " +
        'needs ffmpeg and ffprobe; the same bytes again change nothing',
    )
    .argument('<path>', 'the video file (with --session) or the folder (with --test)')
    .option('--session <uuid>', 'the session the video file belongs to')
    .option('--test <uuid>', 'the test whose sessions the folder holds videos of')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (path: string, options: ImportOptions) => {
      if ((options.session === undefined) === (options.test === undefined)) throw usageError('give either --session SESSION FILE or --test TEST DIR');
      const sessionId = options.session === undefined ? undefined : uuidArgument('--session', options.session);
      const testId = options.test === undefined ? undefined : uuidArgument('--test', options.test);
      const files = sessionId !== undefined ? [{ file: requireFile(path), sessionId }] : folderOfSessions(path);

      const outcomes = await withMediaStore(async (deps, by) => {
        const done: FileOutcome[] = [];
        for (const entry of files) done.push(await importOne(deps, entry, testId, by));
        return done;
      });
      const refused = outcomes.filter((o) => o.outcome === 'refused');
      if (sessionId !== undefined && refused.length > 0) throw new CliError(`${path}: ${refused[0]!.error}; nothing was imported`);
      emit(options, { results: outcomes }, () => outcomes.map(describe).join('\n') || `no files in ${path}`);
      if (refused.length > 0) throw new CliError(`${refused.length} of ${outcomes.length} file${outcomes.length === 1 ? '' : 's'} refused; the others were imported`);
    });
}

async function importOne(deps: VideoImportDeps, entry: { file: string; sessionId: string | null }, testId: string | undefined, by: Actor): Promise<FileOutcome> {
  const { file, sessionId } = entry;
  if (sessionId === null) return { file, sessionId, outcome: 'refused', error: 'the name is not <sessionId>.<extension>' };
  try {
    const { outcome, video } = await importVideo(deps, { sessionId, file, ...(testId === undefined ? {} : { testId }) }, by);
    return { file, sessionId, outcome, durationMs: video.durationMs, width: video.width, height: video.height, hasAudio: video.hasAudio };
  } catch (error) {
    if (error instanceof MediaToolError && error.reason === 'missing') throw new CliError(error.message);
    if (error instanceof NotAPlayableVideoError || error instanceof MediaToolError || error instanceof StoreConflictError) {
      return { file, sessionId, outcome: 'refused', error: error.message };
    }
    throw error;
  }
}

const VERB: Record<FileOutcome['outcome'], string> = { inserted: 'imported', updated: 'replaced', unchanged: 'unchanged', refused: 'refused' };

function describe(o: FileOutcome): string {
  if (o.outcome === 'refused') return `refused  ${o.file}: ${o.error}`;
  const facts = `${(o.durationMs! / 1000).toFixed(1)} s, ${o.width}x${o.height}, ${o.hasAudio ? 'with audio' : 'no audio'}`;
  return `${VERB[o.outcome].padEnd(9)}${o.file} as the video of session ${o.sessionId} (${facts})`;
}

function requireFile(path: string): string {
  let stats;
  try {
    stats = statSync(path);
  } catch (err) {
    throw usageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  if (!stats.isFile()) throw usageError(`${path} is not a file (give a folder with --test)`);
  return path;
}

/** The folder's files in name order (hidden ones left out), each with the session its name gives. */
function folderOfSessions(dir: string): { file: string; sessionId: string | null }[] {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw usageError(`${dir} is not a folder (give a file with --session)`);
    names = readdirSync(dir);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw usageError(`cannot read ${dir}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : (err as Error).message}`);
  }
  return names
    .filter((name) => !name.startsWith('.') && statSync(join(dir, name)).isFile())
    .sort()
    .map((name) => {
      const id = SESSION_FILE.exec(name)?.[1];
      return { file: join(dir, name), sessionId: id !== undefined && isUuid(id) ? uuidKey(id) : null };
    });
}

/**
 * The migrated store and the media storage, as the server opens them, without the rest of
 * the runtime (signing keys and authorization servers are no use to an import).
 */
async function withMediaStore<T>(fn: (deps: VideoImportDeps, by: Actor) => Promise<T>): Promise<T> {
  const config = loadCliConfig();
  const [{ openStoreWithFeed }, { openMediaStorage }] = await Promise.all([import('../store/open-store.js'), import('../media/storage/open-media-storage.js')]);
  const { store, redis, close } = await openStoreWithFeed(config, systemClock);
  if (redis) warnOnceIfRedisDown(redis.outage);
  try {
    const media = await openMediaStorage(config.media, { settings: store.settings, baseUrl: config.baseUrl, clock: systemClock });
    try {
      return await fn({ sessions: store.sessions, videos: store.videos, storage: media.storage }, cliActor());
    } finally {
      media.close();
    }
  } finally {
    await close();
  }
}
