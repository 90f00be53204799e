/** Plain UUID text in any case (no braces, no `urn:uuid:` prefix). */
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** The store keeps ids lowercase: this is the form they are stored and matched in. */
export function uuidKey(value: string): string {
  return value.toLowerCase();
}
