import type { Command } from 'commander';
import { registerSessionsExportCommand } from './sessions-export.js';
import { registerSessionsImportCommand } from './sessions-import.js';

/** `sessions import` and `sessions export`: a test's sessions in and out as files. */
export function registerSessions(program: Command): void {
  const sessions = program.command('sessions').description("a test's sessions");
  registerSessionsImportCommand(sessions);
  registerSessionsExportCommand(sessions);
}
