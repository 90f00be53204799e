import type { Command } from 'commander';
import { registerTranscriptsExportCommand } from './transcripts-export.js';
import { registerTranscriptsImportCommand } from './transcripts-import.js';

/** `transcripts import` and `transcripts export`: sessions' WebVTT transcripts in and out as files. */
export function registerTranscripts(program: Command): void {
  const transcripts = program.command('transcripts').description("sessions' WebVTT transcripts");
  registerTranscriptsImportCommand(transcripts);
  registerTranscriptsExportCommand(transcripts);
}
