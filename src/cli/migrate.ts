import type { Command } from 'commander';
import { systemClock } from '../clock.js';
import { loadCliConfig } from './context.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';

/** `migrate`: brings the database schema up to date (serve does the same at start-up). */
export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('apply database migrations (serve also does this at start-up)')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions) => {
      // The store alone, not the runtime: opening the runtime would migrate before we could report it.
      const config = loadCliConfig();
      const { openStore } = await import('../store/open-store.js');
      // Migrations change nothing a cache holds: there is nothing to announce.
      const store = await openStore(config.databaseUrl, { clock: systemClock, announce: async () => undefined });
      try {
        const { applied } = await store.database.migrate();
        const cues = await store.transcripts.storeMissingCues();
        const searchIndexed = await store.search.indexBacklog();
        emit(options, { applied, transcriptCues: { stored: cues.stored, unreadableSessions: cues.unreadable }, searchIndexed }, () =>
          [
            applied.length === 0 ? 'the database is up to date' : `applied migration${applied.length === 1 ? '' : 's'} ${applied.join(', ')}`,
            ...(cues.stored > 0 ? [`stored the cues of ${cues.stored} transcript${cues.stored === 1 ? '' : 's'} imported before cues were stored`] : []),
            ...(searchIndexed > 0 ? [`indexed the transcripts and answers of ${searchIndexed} session${searchIndexed === 1 ? '' : 's'} for search`] : []),
            ...cues.unreadable.map((id) => `the transcript of session ${id} is not WebVTT as this version reads it: it has no cues until imported again`),
          ].join('\n'),
        );
      } finally {
        await store.database.close();
      }
    });
}
