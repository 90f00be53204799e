import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUuid, uuidV5 } from './uuid.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

describe('isUuid', () => {
  it('takes UUID text in any case', () => {
    expect(isUuid('6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11')).toBe(true);
    expect(isUuid('6F1C1A52-3F0E-4A59-9D1F-0D9B1B7D2A11')).toBe(true);
  });

  it.each([
    '',
    '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a1',
    '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a111',
    '6f1c1a523f0e-4a59-9d1f-0d9b1b7d2a11-',
    '{6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a1}',
    '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a1g',
    '6f1c1a52 3f0e-4a59-9d1f-0d9b1b7d2a11',
    '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a1\u0000',
  ])('refuses %j', (value) => {
    expect(isUuid(value)).toBe(false);
  });

  it('agrees with the regular expression it replaced, on any text', () => {
    const uuidLike = fc.stringMatching(/^[0-9a-fA-FgG\-{} ]{30,40}$/);
    fc.assert(fc.property(fc.oneof(fc.uuid(), uuidLike, fc.string()), (value) => isUuid(value) === UUID_PATTERN.test(value)));
  });
});

describe('uuidV5', () => {
  it("is RFC 9562's name-based UUID: the same as Python's uuid.uuid5", () => {
    // Python 3: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org'), uuid.uuid5(uuid.NAMESPACE_URL, 'ü/x').
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
    expect(uuidV5('6ba7b811-9dad-11d1-80b4-00c04fd430c8', 'ü/x')).toBe('3bcead8c-fc3e-5efe-93fd-5e63c485c888');
  });
});
