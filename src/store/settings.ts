import type { Database } from './database.js';

/** Values the service generates once and keeps (the secret-hash key, the custom server's id). */
export class SettingsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Returns the stored value, or stores `value` if none exists and returns it. Two
   * statements, not one: on PostgreSQL one statement's snapshot would miss a row a concurrent
   * caller just committed. Nothing cached depends on settings: they are read at start-up.
   */
  async getOrSet(key: string, value: string): Promise<string> {
    await this.db.write(null, (tx) => tx.run('INSERT INTO settings (key, value) VALUES (@key, @value) ON CONFLICT (key) DO NOTHING', { key, value }));
    return (await this.db.one<{ value: string }>('SELECT value FROM settings WHERE key = @key', { key }))!.value;
  }
}
