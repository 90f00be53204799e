import { createHash, randomBytes } from 'node:crypto';

/**
 * Random values the admin listener hands out (setup links, session cookies, CSRF tokens): 256
 * bits, base64url. The database keeps only the SHA-256 of a setup token or a session id: with
 * that much entropy a fast hash is enough, and a leaked table signs nobody in.
 */
export const newAdminToken = (): string => randomBytes(32).toString('base64url');

export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('base64url');
