import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ResultsApiError, type ResultsClient } from '../client/index.js';
import { addCredentialOptions, openResultsClient, type CredentialFlags } from './api-credentials.js';
import { uuidArgument } from './arguments.js';
import { CliError, emit, JSON_FLAG, type OutputOptions } from './output.js';
import { ProgressBar } from './progress-bar.js';
import { DownloadError, resumableDownload, type DownloadProgress } from './resumable-download.js';

type DownloadOptions = CredentialFlags & OutputOptions & { test: string; out: string };

interface VideoDownloadOutcome {
  sessionId: string;
  outcome: 'downloaded' | 'resumed' | 'present' | 'no-video' | 'failed';
  file?: string;
  bytes?: number;
  error?: string;
}

/**
 * `videos download`: the video of every completed session of a test, through the API as any
 * API user would (the session list, then each session's one-hour download link), into
 * `<out>/<sessionId>.<ext>`. Run it again after an interruption: finished files are kept and
 * a file cut short continues where it stopped (Range). Progress on a terminal's stderr only.
 */
export function registerVideosDownloadCommand(videos: Command): void {
  addCredentialOptions(
    videos
      .command('download')
      .description("download the video of each completed session of a test through the API into a folder (resumable)")
      .requiredOption('--test <uuid>', 'the test whose session videos are downloaded')
      .requiredOption('--out <dir>', 'the folder to write <sessionId>.<ext> files into (created if missing)')
      .option(JSON_FLAG, 'print the outcome of each session as JSON on stdout'),
  ).action(async (options: DownloadOptions) => {
    const testId = uuidArgument('--test', options.test);
    mkdirSync(options.out, { recursive: true });
    const client = await openResultsClient(options);
    const controller = new AbortController();
    const interrupt = () => controller.abort(new CliError('interrupted; run the same command again to resume', 130));
    process.once('SIGINT', interrupt);
    try {
      const outcomes = await downloadTestVideos(client, testId, options.out, { signal: controller.signal, terminal: process.stderr.isTTY === true });
      const failed = outcomes.filter((o) => o.outcome === 'failed');
      emit(options, { testId, out: options.out, videos: outcomes }, () => summary(outcomes));
      if (failed.length > 0) throw new CliError(`${failed.length} video${failed.length === 1 ? '' : 's'} could not be downloaded; run the same command again to resume`);
    } finally {
      process.off('SIGINT', interrupt);
    }
  });
}

/** Downloads every completed session's video of `testId` into `out`; one outcome per session. */
export async function downloadTestVideos(
  client: ResultsClient,
  testId: string,
  out: string,
  options: { signal?: AbortSignal; terminal?: boolean } = {},
): Promise<VideoDownloadOutcome[]> {
  const outcomes: VideoDownloadOutcome[] = [];
  for await (const session of client.sessionResults(testId, { signal: options.signal })) {
    const { sessionId } = session;
    let link;
    try {
      link = await client.videoDownloadUrl(sessionId, { signal: options.signal });
    } catch (error) {
      if (error instanceof ResultsApiError && error.status === 404) {
        outcomes.push({ sessionId, outcome: 'no-video' });
        continue;
      }
      throw error;
    }
    const extension = /\.([A-Za-z0-9]{1,8})$/.exec(new URL(link.videoUrl).pathname)?.[1] ?? 'mp4';
    const file = join(out, `${sessionId}.${extension}`);
    if (existsSync(file)) {
      outcomes.push({ sessionId, outcome: 'present', file });
      continue;
    }
    const bar = options.terminal ? new ProgressBar(process.stderr, sessionId.slice(0, 8)) : undefined;
    const onProgress: DownloadProgress | undefined = bar ? throttled((done, total) => bar.update(done, total)) : undefined;
    try {
      const result = await resumableDownload(link.videoUrl, file, { signal: options.signal, onProgress });
      outcomes.push({ sessionId, outcome: result.resumedFrom > 0 ? 'resumed' : 'downloaded', file, bytes: result.bytes });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (!(error instanceof DownloadError) && !(error instanceof TypeError)) throw error;
      outcomes.push({ sessionId, outcome: 'failed', file, error: error.message });
    } finally {
      bar?.clear();
    }
  }
  return outcomes;
}

/** Redraws at most every 100 ms, and always at the end. */
function throttled(draw: DownloadProgress): DownloadProgress {
  let last = 0;
  return (done, total) => {
    const now = Date.now();
    if (now - last < 100 && done !== total) return;
    last = now;
    draw(done, total);
  };
}

function summary(outcomes: VideoDownloadOutcome[]): string {
  const count = (kind: VideoDownloadOutcome['outcome']) => outcomes.filter((o) => o.outcome === kind).length;
  const lines = outcomes.filter((o) => o.outcome === 'failed').map((o) => `failed   ${o.sessionId}: ${o.error}`);
  lines.push(
    `${count('downloaded')} downloaded, ${count('resumed')} resumed, ${count('present')} already present, ` +
      `${count('no-video')} without a video, ${count('failed')} failed (${outcomes.length} completed sessions)`,
  );
  return lines.join('\n');
}
