/**
 * Writes what many callers hand it in shared transactions: an item waits for the next turn of
 * the event loop, and while a write runs what arrives waits for the next one; each write takes
 * everything waiting (up to `max`). Each caller gets its own item's answer. When a write fails,
 * each of its items is tried once more alone: a passing fault (a dropped connection, a deadlock
 * with another process) costs no caller its answer, and one item's own failure fails only it.
 */
export class GroupCommit<T, R> {
  private waiting: { item: T; resolve: (answer: R) => void; reject: (err: unknown) => void }[] = [];
  private writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly max: number,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.max);
      try {
        const answers = await this.write(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(answers[i]!));
      } catch {
        for (const w of batch) await this.write([w.item]).then(([answer]) => w.resolve(answer!), w.reject);
      }
    }
    this.writing = false;
  }
}
