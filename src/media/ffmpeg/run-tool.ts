import { execFile } from 'node:child_process';
import { setPriority } from 'node:os';

/** ffmpeg and ffprobe as Debian installs them (`apt-get install ffmpeg`); FFMPEG_PATH/FFPROBE_PATH are not read. */
export const FFMPEG = 'ffmpeg';
export const FFPROBE = 'ffprobe';

/** A media tool that could not do its job: missing, timed out, or refused the input. */
export class MediaToolError extends Error {
  override name = 'MediaToolError';
  constructor(
    message: string,
    readonly reason: 'missing' | 'timeout' | 'failed',
    /** The tool's last words on stderr (a line or two), for the operator. */
    readonly stderr: string,
  ) {
    super(message);
  }
}

export interface ToolRun {
  stdout: string;
  stderr: string;
}

export interface ToolOptions {
  /** Kills the tool when it aborts; the run then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Runs the tool at this nice level, so background work yields the CPU to the API (left at normal priority where raising it is not permitted). */
  niceness?: number;
}

/**
 * Runs `tool` with `args` (never through a shell), killing it after `timeoutMs`: no import
 * or job waits forever on a stuck ffmpeg. Output beyond a few MB is an error, not memory growth.
 */
export function runTool(tool: string, args: readonly string[], timeoutMs: number, options: ToolOptions = {}): Promise<ToolRun> {
  const { signal, niceness } = options;
  return new Promise((resolve, reject) => {
    const child = execFile(tool, args, { timeout: timeoutMs, signal, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024, windowsHide: true }, (error, stdout, stderr) => {
      if (!error) return resolve({ stdout, stderr });
      if (signal?.aborted) return reject(signal.reason as Error);
      const tail = lastLines(stderr);
      const e = error as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null };
      if (e.code === 'ENOENT') {
        return reject(new MediaToolError(`${tool} is not installed (on Debian or Ubuntu: apt-get install ffmpeg)`, 'missing', ''));
      }
      if (e.killed || e.signal === 'SIGKILL') return reject(new MediaToolError(`${tool} took longer than ${Math.round(timeoutMs / 1000)} s`, 'timeout', tail));
      reject(new MediaToolError(`${tool} failed${tail ? `: ${tail}` : ''}`, 'failed', tail));
    });
    if (niceness !== undefined && child.pid !== undefined) {
      try {
        setPriority(child.pid, niceness);
      } catch {
        // Not permitted here: it runs at normal priority.
      }
    }
  });
}

/** The last two non-empty lines: enough to say what went wrong, short enough to print. */
export function lastLines(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(-2)
    .join('; ')
    .slice(0, 500);
}
