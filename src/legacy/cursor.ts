import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { apiErrors } from '../errors.js';
import type { SettingsRepository } from '../store/settings.js';
import type { SessionKey } from '../store/store.js';

const MAC_BYTES = 16;
const MAX_CURSOR_LENGTH = 300;

/**
 * Keyset cursors of the completed-sessions listing: a session's place in page order
 * (startTime, sessionId) and its test, signed with an HMAC key the service generates once and
 * keeps in its settings. Opaque to clients; a changed or forged cursor is refused, and so is
 * one minted for another test, so a cursor cannot be used to probe tests the caller cannot see.
 */
export class SessionCursors {
  constructor(private readonly key: Buffer) {}

  static async load(settings: Pick<SettingsRepository, 'getOrSet'>): Promise<SessionCursors> {
    const key = await settings.getOrSet('session_cursor_hmac_key', randomBytes(32).toString('base64'));
    return new SessionCursors(Buffer.from(key, 'base64'));
  }

  encode(testId: string, at: SessionKey): string {
    const payload = `${testId}|${at.startTime}|${at.sessionId}`;
    return `${Buffer.from(payload).toString('base64url')}.${this.mac(payload).toString('base64url')}`;
  }

  /** The position a cursor names, if this service signed it for `testId`; else a 400 naming `parameter`. */
  decode(parameter: string, cursor: string, testId: string): SessionKey {
    const invalid = (why: string) => apiErrors.invalidParameter(`${parameter} is not a cursor this listing issued (${why}).`);
    const [data, mac, extra] = cursor.length <= MAX_CURSOR_LENGTH ? cursor.split('.') : [];
    if (!data || !mac || extra !== undefined) throw invalid('malformed');
    const payload = Buffer.from(data, 'base64url').toString();
    const given = Buffer.from(mac, 'base64url');
    const expected = this.mac(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid('signature mismatch');
    const [cursorTest, startTime, sessionId] = payload.split('|');
    if (cursorTest !== testId) {
      throw apiErrors.invalidParameter(`${parameter} is a cursor of another study; use cursors from this study's own listing.`);
    }
    return { startTime: Number(startTime), sessionId: sessionId! };
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}
