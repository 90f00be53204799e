/**
 * Writes what many callers hand it in shared transactions: an item waits for the next turn of
 * the event loop, and while a write runs what arrives waits for the next one; each write takes
 * everything waiting (up to `max`). Each caller gets its own item's answer. When a shared write
 * fails, each of its items is written again alone, so one item's failure (or a deadlock with
 * another process) fails only its own caller.
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
      } catch (err) {
        if (batch.length === 1) batch[0]!.reject(err);
        else for (const w of batch) await this.write([w.item]).then(([answer]) => w.resolve(answer!), w.reject);
      }
    }
    this.writing = false;
  }
}
