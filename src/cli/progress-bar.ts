/**
 * A one-line progress bar redrawn in place (`\r`, then erase to the end of the line). Meant
 * for a terminal's stderr only: callers draw it only when stderr is a TTY, so pipes and log
 * files never receive control characters.
 */
export class ProgressBar {
  private drawn = false;

  constructor(
    private readonly stream: { write(chunk: string): unknown; columns?: number },
    private readonly label: string,
  ) {}

  /** Redraws the bar at `done` of `total`. */
  update(done: number, total: number): void {
    this.stream.write(`\r${renderProgress(this.label, done, total, this.stream.columns || 80)}\x1b[K`);
    this.drawn = true;
  }

  /** Erases the bar, leaving the cursor at the start of the line. */
  clear(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}

/** `label [#######-------]  1500/3003  50%`, the bar sized to fit `columns`. */
export function renderProgress(label: string, done: number, total: number, columns: number): string {
  const ratio = total > 0 ? Math.min(1, done / total) : 1;
  const counts = ` ${done}/${total} ${String(Math.floor(ratio * 100)).padStart(3)}%`;
  const width = Math.max(10, Math.min(40, columns - label.length - counts.length - 4));
  const filled = Math.round(ratio * width);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}]${counts}`;
}
