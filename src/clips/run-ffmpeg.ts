import { FFMPEG, runTool } from '../media/ffmpeg/run-tool.js';

/** Background media work yields the CPU to the API: ffmpeg runs at this nice level. */
const BACKGROUND_PRIORITY = 10;
/** Far longer than any clip or reel step takes, so a stuck ffmpeg cannot hold its job forever. */
const STEP_TIME_LIMIT_MS = 60 * 60 * 1000;

/**
 * Runs one ffmpeg step of a clip or reel job, quietly and at background priority; it is
 * killed when the job's `signal` aborts (the run then rejects with the signal's reason).
 */
export async function runFfmpeg(args: readonly string[], signal: AbortSignal): Promise<void> {
  await runTool(FFMPEG, ['-nostdin', '-hide_banner', '-loglevel', 'error', ...args], STEP_TIME_LIMIT_MS, { signal, niceness: BACKGROUND_PRIORITY });
}
