import type { Clock } from '../../clock.js';
import type { MediaConfig } from '../../config.js';
import type { SettingsRepository } from '../../store/settings.js';
import { FilesystemMediaStorage } from './filesystem-storage.js';
import { loadMediaLinkKey, MediaLinkSigner } from './media-links.js';
import type { MediaStorage } from './media-storage.js';

export interface OpenedMediaStorage {
  storage: MediaStorage;
  /** Checks this server's own media links (served by registerMediaLinkRoute). */
  links: MediaLinkSigner;
  close(): void;
}

/**
 * The media storage MEDIA_URL names. `baseUrl` is where this server's own media links point
 * (BASE_URL); the link key comes from the settings table, so every process signs alike.
 */
export async function openMediaStorage(
  config: MediaConfig,
  deps: { settings: Pick<SettingsRepository, 'getOrSet'>; baseUrl: string; clock: Clock },
): Promise<OpenedMediaStorage> {
  const links = new MediaLinkSigner(await loadMediaLinkKey(deps.settings), deps.baseUrl, deps.clock);
  if (config.kind === 'file') return { storage: new FilesystemMediaStorage(config.directory, links), links, close: () => undefined };
  // Loaded only when configured: an embedded server never pays for the AWS SDK.
  const { S3MediaStorage } = await import('./s3-storage.js');
  const storage = new S3MediaStorage(config, deps.clock);
  return { storage, links, close: () => storage.close() };
}
