/**
 * A reader that went away (`results-api clips list --help | head`, a pager quit early) is not a
 * failure of the command: it has nobody left to tell anything to, so it exits at once, quietly
 * and with 0, as `head`'s own pipeline expects, instead of dying of an unhandled EPIPE with a
 * stack trace. Any other error of the standard streams is still thrown.
 */
export function exitWhenReaderLeaves(proc: Pick<NodeJS.Process, 'stdout' | 'stderr' | 'exit'>): void {
  for (const stream of [proc.stdout, proc.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      proc.exit(0);
    });
  }
}
