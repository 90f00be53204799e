/**
 * Links to media served by this server (the filesystem backend's equivalent of an S3
 * presigned URL): `<baseUrl>/media/<key>?expires=<epoch s>[&name=<file name>]&signature=<HMAC>`.
 * The HMAC binds the key, the expiry and the offered file name, so a link opens exactly one
 * object until it expires and cannot be edited into another.
 *
 * The HMAC key is derived (HKDF-SHA256) from a random secret generated once and kept in the
 * settings table, so every process and every restart signs alike; it is not a token-signing key.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { SettingsRepository } from '../../store/settings.js';
import { isMediaKey, type SignedLinkOptions, type SignedMediaLink } from './media-storage.js';

/**
 * Where the server serves signed media links: `/media/<collection>/<owner>/<file>`, so only
 * keys of exactly three segments (e.g. `videos/<sessionId>/<sha256>.mp4`) can be linked.
 */
export const MEDIA_LINK_PATH = '/media';
const linkable = (key: string) => isMediaKey(key) && key.split('/').length === 3;

const SETTING = 'media_link_secret';
const HKDF_INFO = 'results-api media links v1';

/** The media link HMAC key of this deployment (its secret generated on first use). */
export async function loadMediaLinkKey(settings: Pick<SettingsRepository, 'getOrSet'>): Promise<Buffer> {
  const secret = await settings.getOrSet(SETTING, randomBytes(32).toString('base64url'));
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'base64url'), Buffer.alloc(0), HKDF_INFO, 32));
}

export type LinkCheck = { ok: true; key: string; downloadName: string | undefined } | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' };

/** Parameters a signed link carries besides the key. */
export interface LinkQuery {
  expires?: string | undefined;
  name?: string | undefined;
  signature?: string | undefined;
}

export class MediaLinkSigner {
  constructor(
    private readonly hmacKey: Buffer,
    /** The server's public origin (BASE_URL), without a trailing slash. */
    private readonly baseUrl: string,
    private readonly clock: Clock,
  ) {}

  sign(key: string, options: SignedLinkOptions): SignedMediaLink {
    if (!linkable(key)) throw new TypeError(`media key "${key.slice(0, 200)}" cannot be linked: links serve keys of three segments`);
    // Whole seconds: the expiry printed in the link is the one signed and checked.
    const expiresSeconds = Math.floor(this.clock.now() / 1000) + options.expiresInSeconds;
    const query = new URLSearchParams({ expires: String(expiresSeconds) });
    if (options.downloadName !== undefined) query.set('name', options.downloadName);
    query.set('signature', this.mac(key, String(expiresSeconds), options.downloadName));
    return { url: `${this.baseUrl}${MEDIA_LINK_PATH}/${key}?${query}`, expiresAt: expiresSeconds * 1000 };
  }

  /** Whether a request for `key` with `query` carries a valid, unexpired signature for it. */
  check(key: string, query: LinkQuery): LinkCheck {
    const { expires, name, signature } = query;
    if (!linkable(key) || !expires || !/^\d{1,12}$/.test(expires) || !signature || !/^[A-Za-z0-9_-]{43}$/.test(signature)) {
      return { ok: false, reason: 'malformed' };
    }
    const expected = Buffer.from(this.mac(key, expires, name), 'base64url');
    const given = Buffer.from(signature, 'base64url');
    // Constant time, so a guess learns nothing from how long a refusal takes.
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad_signature' };
    // Checked after the signature, so an edited expiry is "tampered", never "expired".
    if (Number(expires) * 1000 <= this.clock.now()) return { ok: false, reason: 'expired' };
    return { ok: true, key, downloadName: name };
  }

  private mac(key: string, expires: string, name: string | undefined): string {
    // Fields joined by a newline, which none of them may contain: no two inputs sign alike.
    const message = ['v1', key, expires, name === undefined ? '-' : `=${name.replace(/\n/g, ' ')}`].join('\n');
    return createHmac('sha256', this.hmacKey).update(message).digest('base64url');
  }
}
