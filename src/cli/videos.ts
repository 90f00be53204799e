import type { Command } from 'commander';
import { registerVideosDownloadCommand } from './videos-download.js';
import { registerVideosImportCommand } from './videos-import.js';

/** `videos import` and `videos download`: session videos into the media storage, and out through the API. */
export function registerVideos(program: Command): void {
  const videos = program.command('videos').description('session videos');
  registerVideosImportCommand(videos);
  registerVideosDownloadCommand(videos);
}
