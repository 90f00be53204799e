import { createHash, randomBytes } from 'node:crypto';

/**
 * Random values handed to people and browsers (setup links, session cookies, CSRF tokens,
 * authorization codes, refresh tokens): 256 bits, base64url. The database keeps only their
 * SHA-256: with that much entropy a fast hash is enough, and a leaked table signs nobody in.
 */
export const newSecretToken = (): string => randomBytes(32).toString('base64url');

export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('base64url');
