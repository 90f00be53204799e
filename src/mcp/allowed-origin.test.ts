import { describe, expect, it } from 'vitest';
import { isAllowedOrigin } from './allowed-origin.js';

const PUBLIC = { baseUrl: 'https://results.example.com/base', host: '0.0.0.0' };
const LOCAL = { baseUrl: 'http://localhost:8080', host: '127.0.0.1' };

describe('isAllowedOrigin (DNS rebinding protection of /mcp)', () => {
  it("accepts BASE_URL's own origin, whatever the path of BASE_URL", () => {
    expect(isAllowedOrigin('https://results.example.com', PUBLIC)).toBe(true);
    expect(isAllowedOrigin('http://localhost:8080', LOCAL)).toBe(true);
  });

  it('refuses other sites, other schemes or ports of our host, and opaque origins', () => {
    for (const origin of ['https://evil.example', 'http://results.example.com', 'https://results.example.com:8443', 'https://results.example.com.evil.example', 'null', '', 'file://', 'results.example.com']) {
      expect(isAllowedOrigin(origin, PUBLIC), origin).toBe(false);
    }
  });

  it('accepts loopback origins on any port only when the server is bound to loopback', () => {
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1:3000', 'http://[::1]:5173', 'https://127.0.0.2']) {
      expect(isAllowedOrigin(origin, LOCAL), origin).toBe(true);
      expect(isAllowedOrigin(origin, { ...LOCAL, host: '::1' }), origin).toBe(true);
      expect(isAllowedOrigin(origin, { ...LOCAL, host: 'localhost' }), origin).toBe(true);
      expect(isAllowedOrigin(origin, PUBLIC), origin).toBe(false);
      expect(isAllowedOrigin(origin, { ...PUBLIC, host: '192.168.1.10' }), origin).toBe(false);
    }
  });

  it('refuses a rebinding name on a loopback server: the Origin is the attacker page, not the address it resolved to', () => {
    expect(isAllowedOrigin('http://rebind.evil.example:8080', LOCAL)).toBe(false);
    expect(isAllowedOrigin('http://localhost.evil.example:8080', LOCAL)).toBe(false);
    expect(isAllowedOrigin('ftp://localhost:8080', LOCAL)).toBe(false);
  });
});
