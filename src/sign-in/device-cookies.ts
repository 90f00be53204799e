import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SettingsRepository } from '../store/settings.js';

/** A browser that signed in is a known device of that account for 30 days after its latest sign-in there. */
export const DEVICE_COOKIE_TTL_SECONDS = 30 * 24 * 60 * 60;

/** Whose sign-in a device cookie is for: each has its own key, so one kind's cookie is no cookie of the other. */
export type DeviceCookiePurpose = 'admin' | 'user';

/**
 * OWASP's device cookies: a browser that signed in to an account gets a cookie that proves it
 * later, so sign-in throttling (src/access/guessing-throttle.ts) can tell the owner's own
 * browser from a stranger at the same address. The value is `<device id>.<expiry, epoch s>.<HMAC>`;
 * the HMAC covers the id, the expiry and the account (its email key), so the cookie works for
 * that account only, does not name it, and cannot be made without the deployment's key (kept
 * in the settings, one per purpose).
 */
export class DeviceCookies {
  private constructor(
    private readonly purpose: DeviceCookiePurpose,
    private readonly key: Buffer,
  ) {}

  static async load(settings: SettingsRepository, purpose: DeviceCookiePurpose): Promise<DeviceCookies> {
    const key = await settings.getOrSet(`${purpose}_device_cookie_key`, randomBytes(32).toString('base64'));
    return new DeviceCookies(purpose, Buffer.from(key, 'base64'));
  }

  /** A cookie value for `account`, keeping the device id of the cookie the browser already had. */
  issue(account: string, now: number, deviceId = randomBytes(16).toString('base64url')): string {
    const expires = Math.floor(now / 1000) + DEVICE_COOKIE_TTL_SECONDS;
    return `${deviceId}.${expires}.${this.mac(deviceId, expires, account)}`;
  }

  /** The device id of a cookie this deployment issued for `account` that has not expired; undefined otherwise. */
  deviceOf(cookie: string | undefined, account: string, now: number): string | undefined {
    const match = /^([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(cookie ?? '');
    if (!match) return undefined;
    const [, deviceId, expiresText, mac] = match as unknown as [string, string, string, string];
    const expires = Number(expiresText);
    if (expires * 1000 <= now) return undefined;
    const expected = Buffer.from(this.mac(deviceId, expires, account));
    return timingSafeEqual(expected, Buffer.from(mac)) ? deviceId : undefined;
  }

  private mac(deviceId: string, expires: number, account: string): string {
    return createHmac('sha256', this.key).update(`${this.purpose}-device|${deviceId}|${expires}|${account}`).digest('base64url');
  }
}
