/** Emails are unique case-insensitively: this is the form they are matched in. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

// Deliberately loose (RFC 5322 is not worth enforcing): one @, no spaces, a dot in the domain.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL_PATTERN.test(value.trim());
}
