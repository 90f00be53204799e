import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

/** Background media work yields the CPU to the API: ffmpeg runs at this nice level. */
const BACKGROUND_PRIORITY = 10;
const STDERR_TAIL = 2000;

export class FfmpegError extends Error {
  override name = 'FfmpegError';
}

/**
 * Runs `ffmpeg` with `args` (never through a shell) and resolves when it exits 0. It is
 * killed when `signal` aborts. A failure names the exit code and ffmpeg's last words.
 */
export function runFfmpeg(args: readonly string[], signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      signal,
      killSignal: 'SIGKILL',
    });
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, BACKGROUND_PRIORITY);
      } catch {
        // Not permitted here: it runs at normal priority.
      }
    }
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL);
    });
    child.once('error', (err) => {
      if (signal.aborted) reject(signal.reason as Error);
      else if ((err as NodeJS.ErrnoException).code === 'ENOENT') reject(new FfmpegError('ffmpeg is not installed (apt-get install ffmpeg)'));
      else reject(err);
    });
    child.once('close', (code, killedBy) => {
      if (code === 0) resolve();
      else if (signal.aborted) reject(signal.reason as Error);
      else reject(new FfmpegError(`ffmpeg exited with ${code ?? killedBy}: ${stderr.trim().split('\n').slice(-3).join(' / ') || 'no message'}`));
    });
  });
}
