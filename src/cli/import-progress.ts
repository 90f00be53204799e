import type { ImportPhase } from '../imports/import-session-file.js';
import { ProgressBar } from './progress-bar.js';

/** Where the bar is drawn: stderr, when it is a terminal. */
export interface ProgressStream {
  write(chunk: string): unknown;
  columns?: number;
  isTTY?: boolean;
}

/**
 * The progress of `sessions import`: one bar, relabelled per phase, in megabytes of the file
 * read. Drawn only on a terminal, so pipes and logs never receive control characters, and
 * redrawn in steps of 0.5% (a chunk is read every few milliseconds).
 */
export class ImportProgress {
  private bar: ProgressBar | undefined;
  private drawn: { phase: ImportPhase; step: number } | undefined;

  constructor(
    private readonly stream: ProgressStream,
    private readonly fileBytes: number,
  ) {}

  update(phase: ImportPhase, bytesRead: number): void {
    if (!this.stream.isTTY) return;
    const step = this.fileBytes > 0 ? Math.floor((bytesRead * 200) / this.fileBytes) : 200;
    if (this.drawn?.phase === phase && this.drawn.step === step) return;
    if (this.drawn?.phase !== phase) {
      this.bar?.clear();
      this.bar = new ProgressBar(this.stream, `${phase} (MB)`);
    }
    this.bar!.update(megabytes(bytesRead), megabytes(this.fileBytes));
    this.drawn = { phase, step };
  }

  clear(): void {
    this.bar?.clear();
  }
}

const megabytes = (bytes: number): number => Math.round(bytes / 100_000) / 10;
