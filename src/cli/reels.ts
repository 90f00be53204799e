import type { Command } from 'commander';
import { registerReelsCreateCommand } from './reels-create.js';
import { registerReelsListCommand } from './reels-list.js';
import { registerReelsRetryCommand } from './reels-retry.js';

/** `reels`: highlight reels, clips of one test joined into one video by the server. */
export function registerReels(program: Command): void {
  const reels = program.command('reels').description('highlight reels: clips of a test joined into one video (by a background job of the server)');
  registerReelsCreateCommand(reels);
  registerReelsListCommand(reels);
  registerReelsRetryCommand(reels);
}
