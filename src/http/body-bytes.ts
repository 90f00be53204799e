/**
 * A serialized body as the UTF-8 bytes it is sent as: a cached body is then written to every
 * response as it is, where a string would be encoded again for each one.
 */
export const bodyBytes = (json: string): Buffer => Buffer.from(json, 'utf8');

/** Whether two bodies are the same bytes (a cache keeps the one it has: see FreshCache's sameValue). */
export const sameBytes = (a: Buffer, b: Buffer): boolean => a.equals(b);
