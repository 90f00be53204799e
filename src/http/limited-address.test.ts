import { describe, expect, it } from 'vitest';
import { limitedAddress } from './limited-address.js';

describe('limitedAddress', () => {
  it('counts an IPv4 address as it is, also when it arrives IPv4-mapped', () => {
    expect(limitedAddress('192.0.2.7')).toBe('192.0.2.7');
    expect(limitedAddress('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(limitedAddress('::FFFF:c000:207')).toBe('192.0.2.7');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const network = '2001:db8:aa:bb::/64';
    expect(limitedAddress('2001:db8:aa:bb::1')).toBe(network);
    expect(limitedAddress('2001:db8:aa:bb:ffff:ffff:ffff:fffe')).toBe(network);
    expect(limitedAddress('2001:0DB8:00AA:00BB:0:0:0:1')).toBe(network);
    expect(limitedAddress('fe80::1%eth0')).toBe('fe80::/64');
    expect(limitedAddress('2001:db8:aa:bc::1')).not.toBe(network);
    expect(limitedAddress('::1')).toBe('::/64');
  });

  it('counts what is not an address as it is', () => {
    expect(limitedAddress('unknown')).toBe('unknown');
    expect(limitedAddress('')).toBe('');
  });
});
