import { createHash } from 'node:crypto';

/**
 * Plain UUID text in any case (no braces, no `urn:uuid:` prefix). Checked by hand: an import
 * checks two per line, and the equivalent case-insensitive regular expression was ~7% of a
 * 1M-line import.
 */
export function isUuid(value: string): boolean {
  if (value.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = value.charCodeAt(i);
    // 8-4-4-4-12 hexadecimal digits.
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 0x2d) return false;
    } else if (!((c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66))) {
      return false;
    }
  }
  return true;
}

/** The store keeps ids lowercase: this is the form they are stored and matched in. */
export function uuidKey(value: string): string {
  return value.toLowerCase();
}

/** The canonical 8-4-4-4-12 text of 16 bytes. */
const uuidText = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;

/** The bytes of each namespace used, read once (a generator names a million sessions in one). */
const namespaceBytes = new Map<string, Buffer>();

/**
 * RFC 9562 §5.5: the name-based (SHA-1) UUID of `name` in `namespace`, the same as Python's
 * `uuid.uuid5(namespace, name)`: one name always gives one UUID.
 */
export function uuidV5(namespace: string, name: string): string {
  let bytes = namespaceBytes.get(namespace);
  if (!bytes) namespaceBytes.set(namespace, (bytes = Buffer.from(namespace.replace(/-/g, ''), 'hex')));
  const digest = createHash('sha1').update(bytes).update(name, 'utf8').digest();
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  return uuidText(digest.subarray(0, 16).toString('hex'));
}
