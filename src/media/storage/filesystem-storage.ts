import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MediaLinkSigner } from './media-links.js';
import {
  assertMediaKey,
  contentTypeOfKey,
  MediaNotFoundError,
  type ByteRange,
  type MediaObject,
  type MediaStorage,
  type SignedLinkOptions,
  type SignedMediaLink,
} from './media-storage.js';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Where objects are written before they are renamed into place; no key starts with '.'. */
const PARTIAL_DIRECTORY = '.partial';

/** A partial file untouched this long was left by a writer that died: a live write touches it with every chunk. */
export const ABANDONED_PARTIAL_MS = 60 * 60 * 1000;

/**
 * Media as files under one directory, a key being a relative path. A file is written in the
 * directory's `.partial/` and renamed into place, so a reader never sees half an object; what a
 * killed process left there is removed by the next process that writes. The media type comes
 * from the key's extension (callers name keys by what they hold). Links point at this server,
 * signed by `links`.
 */
export class FilesystemMediaStorage implements MediaStorage {
  readonly kind = 'file';
  private readonly root: string;
  private partials: Promise<string> | undefined;

  constructor(
    directory: string,
    private readonly links: MediaLinkSigner,
  ) {
    this.root = resolve(directory);
  }

  async put(key: string, body: Readable, _contentType: string): Promise<MediaObject> {
    return this.writeAtomically(key, async (partial) => {
      // Opened before the body flows: a stream that opens its own file can report a failed body
      // while its open still waits in libuv's pool, and the clean-up, run beside it there, can
      // miss the file that the open then creates.
      const file = await open(partial, 'wx').catch((error: unknown) => {
        body.destroy(); // as pipeline would: a body nobody will read is not left open
        throw error;
      });
      try {
        await pipeline(body, file.createWriteStream());
      } finally {
        await file.close();
      }
    });
  }

  async putFile(key: string, path: string, _contentType: string): Promise<MediaObject> {
    return this.writeAtomically(key, (partial) => copyFile(path, partial));
  }

  async stat(key: string): Promise<MediaObject | null> {
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? { key, size: info.size, contentType: contentTypeOfKey(key) } : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    let handle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if (isMissing(error)) throw new MediaNotFoundError(key);
      throw error;
    }
    // The stream owns the handle and closes it when it ends or is destroyed.
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async signedUrl(key: string, options: SignedLinkOptions): Promise<SignedMediaLink> {
    assertMediaKey(key);
    return this.links.sign(key, options);
  }

  /** The file that holds `key`, always inside the media directory. */
  pathOf(key: string): string {
    assertMediaKey(key);
    return join(this.root, ...key.split('/'));
  }

  private async writeAtomically(key: string, write: (partial: string) => Promise<unknown>): Promise<MediaObject> {
    const path = this.pathOf(key);
    const [partials] = await Promise.all([this.partialDirectory(), mkdir(dirname(path), { recursive: true })]);
    const partial = join(partials, `${randomBytes(9).toString('hex')}.partial`);
    try {
      await write(partial);
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    const { size } = await stat(path);
    return { key, size, contentType: contentTypeOfKey(key) };
  }

  /** `.partial/`, created and cleared of abandoned files once per process (again after a failure). */
  private partialDirectory(): Promise<string> {
    this.partials ??= (async () => {
      const directory = join(this.root, PARTIAL_DIRECTORY);
      await mkdir(directory, { recursive: true });
      await removeAbandoned(directory);
      return directory;
    })().catch((error: unknown) => {
      this.partials = undefined;
      throw error;
    });
    return this.partials;
  }
}

async function removeAbandoned(directory: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(directory)) {
    const file = join(directory, name);
    // Another process may finish or remove it meanwhile.
    const info = await stat(file).catch((error: unknown) => (isMissing(error) ? null : Promise.reject(error)));
    if (info && now - info.mtimeMs > ABANDONED_PARTIAL_MS) await rm(file, { force: true });
  }
}
