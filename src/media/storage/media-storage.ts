/**
 * Where media objects live (session videos, posters, and what is made from them: clips,
 * reels), behind one interface with a filesystem and an S3-compatible backend. Objects are
 * written once under a key and read as streams; no backend ever holds a whole object in memory.
 */
import type { Readable } from 'node:stream';

/** What a backend knows about a stored object. */
export interface MediaObject {
  key: string;
  /** Bytes. */
  size: number;
  contentType: string;
}

/** An inclusive byte range (HTTP's `bytes=start-end`). */
export interface ByteRange {
  start: number;
  end: number;
}

/** A link anyone holding it may GET, until it expires. */
export interface SignedMediaLink {
  url: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export interface SignedLinkOptions {
  /** How long the link works, from now. */
  expiresInSeconds: number;
  /** Offered to a browser as the download's file name (Content-Disposition). */
  downloadName?: string;
}

export interface MediaStorage {
  readonly kind: 'file' | 's3';
  /**
   * Stores `body` under `key`, streaming; replaces an object already there. The object
   * appears whole or not at all: a failed or aborted upload leaves nothing behind.
   */
  put(key: string, body: Readable, contentType: string): Promise<MediaObject>;
  /** `put` of a local file (its size known up front, so big files go up in parallel parts). */
  putFile(key: string, path: string, contentType: string): Promise<MediaObject>;
  /** The object's size and type, or null when there is none. */
  stat(key: string): Promise<MediaObject | null>;
  /** The object's bytes (or `range` of them); rejects with MediaNotFoundError when there is none. */
  getStream(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes the object; nothing happens when there is none. */
  delete(key: string): Promise<void>;
  /**
   * A link to GET the object without other credentials, until it expires: an S3 presigned
   * URL, or a link to this server signed with its media link key (see media-links.ts).
   */
  signedUrl(key: string, options: SignedLinkOptions): Promise<SignedMediaLink>;
}

export class MediaNotFoundError extends Error {
  override name = 'MediaNotFoundError';
  constructor(readonly key: string) {
    super(`no media object ${key}`);
  }
}

/**
 * Keys are relative paths of plain segments (letters, digits, '.', '_', '-'), never '.' or
 * '..': they name the same object on every backend and cannot leave the media directory.
 */
const KEY = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}\/){0,7}[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

export function isMediaKey(key: string): boolean {
  return KEY.test(key) && !key.split('/').some((segment) => /^\.+$/.test(segment));
}

export function assertMediaKey(key: string): void {
  if (!isMediaKey(key)) throw new TypeError(`invalid media key "${key.slice(0, 200)}"`);
}

const CONTENT_TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  vtt: 'text/vtt',
};

/** The media type a key's extension names (the filesystem keeps no metadata of its own). */
export function contentTypeOfKey(key: string): string {
  const extension = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
  return CONTENT_TYPES[extension] ?? 'application/octet-stream';
}

/** RFC 6266 attachment with an RFC 8187 UTF-8 name and an ASCII fallback. */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
