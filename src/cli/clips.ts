import type { Command } from 'commander';
import { registerClipsCreateCommand } from './clips-create.js';
import { registerClipsListCommand } from './clips-list.js';
import { registerClipsRetryCommand } from './clips-retry.js';

/** `clips`: parts of session videos, cut in the background by the server. */
export function registerClips(program: Command): void {
  const clips = program.command('clips').description('clips of session videos (cut by ffmpeg in a background job of the server)');
  registerClipsCreateCommand(clips);
  registerClipsListCommand(clips);
  registerClipsRetryCommand(clips);
}
