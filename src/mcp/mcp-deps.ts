import type { ResourceAccess } from '../access/resource-access.js';
import type { SessionDetailsReader } from '../details/details-reader.js';
import type { MediaStorage } from '../media/storage/media-storage.js';
import type { SessionPageReader } from '../results/session-pages.js';
import type { ClipRepository } from '../store/clips.js';
import type { ReelRepository } from '../store/reels.js';
import type { SearchDeps } from '../search/search.js';

/**
 * What the MCP tools read through: ResourceAccess for every resource a caller names, then the
 * same domain readers the REST routes use, so a tool answers what REST answers.
 */
export interface McpDeps extends SearchDeps {
  access: ResourceAccess;
  pages: SessionPageReader;
  details: SessionDetailsReader;
  clips: Pick<ClipRepository, 'listClips'>;
  reels: Pick<ReelRepository, 'listReels' | 'countClipsOfTest'>;
  storage: MediaStorage;
}
