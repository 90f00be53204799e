import { describe, expect, it } from 'vitest';
import { matchRedirectUri, redirectReachesOnlyTheApp, redirectUriProblem } from './redirect-uris.js';

describe('redirect URIs', () => {
  const registered = ['https://app.example.com/callback', 'http://127.0.0.1/cb', 'com.example.app:/oauth'];

  it('match exactly, character for character', () => {
    expect(matchRedirectUri('https://app.example.com/callback', registered)).toBe('https://app.example.com/callback');
    for (const attack of [
      'https://app.example.com/callback/../evil',
      'https://app.example.com/callbackx',
      'https://app.example.com/callback?x=1',
      'https://evil.app.example.com/callback',
      'https://app.example.com.evil.com/callback',
      'https://APP.example.com/callback',
      'https://app.example.com:443/callback',
      'http://app.example.com/callback',
    ]) expect(matchRedirectUri(attack, registered), attack).toBeNull();
  });

  it('a loopback redirect may name any port (RFC 8252 §7.3), nothing else may differ', () => {
    expect(matchRedirectUri('http://127.0.0.1:53124/cb', registered)).toBe('http://127.0.0.1:53124/cb');
    expect(matchRedirectUri('http://127.0.0.1/cb', registered)).toBe('http://127.0.0.1/cb');
    expect(matchRedirectUri('http://127.0.0.1:53124/cb2', registered)).toBeNull();
    expect(matchRedirectUri('http://localhost:53124/cb', registered)).toBeNull();
    expect(matchRedirectUri('http://127.0.0.1:53124@evil.com/cb', registered)).toBeNull();
  });

  it('what may be registered', () => {
    expect(redirectUriProblem('https://app.example.com/cb')).toBeNull();
    expect(redirectUriProblem('http://localhost:8080/cb')).toBeNull();
    expect(redirectUriProblem('com.example.app:/oauth')).toBeNull();
    expect(redirectUriProblem('com.example.app:/oauth', 'https-or-loopback')).toMatch(/https or http on a loopback/);
    expect(redirectUriProblem('http://app.example.com/cb')).toMatch(/must be https/);
    expect(redirectUriProblem('https://app.example.com/cb#x')).toMatch(/fragment/);
    expect(redirectUriProblem('javascript:alert(1)')).toMatch(/must be https/);
    expect(redirectUriProblem('/relative')).toMatch(/not an absolute URI/);
  });

  it('reach only the app when https to a host that is not the device itself (a remembered approval may skip consent)', () => {
    expect(redirectReachesOnlyTheApp('https://app.example.com/callback')).toBe(true);
    for (const anyProgram of ['http://127.0.0.1:5000/cb', 'http://localhost/cb', 'http://[::1]:8080/cb', 'https://localhost/cb', 'https://[::1]/cb', 'com.example.app:/oauth']) {
      expect(redirectReachesOnlyTheApp(anyProgram), anyProgram).toBe(false);
    }
  });
});
