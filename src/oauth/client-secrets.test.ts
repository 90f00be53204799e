import { describe, expect, it } from 'vitest';
import type { SettingsRepository } from '../store/settings.js';
import { SecretHasher, generateClientSecret } from './client-secrets.js';

const settingsOnly = { getOrSet: async (_name: string, value: string) => value } as unknown as SettingsRepository;

describe('SecretHasher.matchesAny', () => {
  it('accepts a secret only against a live stored hash, whatever its position', async () => {
    const hasher = await SecretHasher.load(settingsOnly);
    const [a, b] = [generateClientSecret(), generateClientSecret()];
    const stored = [
      { hash: hasher.hash(a), live: false },
      { hash: hasher.hash(b), live: true },
    ];
    expect(hasher.matchesAny(b, stored)).toBe(true);
    expect(hasher.matchesAny(a, stored)).toBe(false); // expired
    expect(hasher.matchesAny(generateClientSecret(), stored)).toBe(false);
    expect(hasher.matchesAny(b, [...stored, ...stored, ...stored])).toBe(true);
  });

  it('with nothing stored (unknown client) nothing matches, not even an empty secret', async () => {
    const hasher = await SecretHasher.load(settingsOnly);
    expect(hasher.matchesAny('', [])).toBe(false);
    expect(hasher.matchesAny(generateClientSecret(), [])).toBe(false);
  });

  it('a stored hash of another length (corrupt row) is a mismatch, not an exception', async () => {
    const hasher = await SecretHasher.load(settingsOnly);
    expect(hasher.matchesAny('x', [{ hash: 'short', live: true }])).toBe(false);
  });
});
