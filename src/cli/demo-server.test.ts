import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { demoUrls } from './demo-server.js';

const urlsFor = (env: Record<string, string>, url?: string) => demoUrls(loadConfig({ METRICS_PORT: 'off', ...env }), url);
const both = (url: string) => ({ authUrl: url, baseUrl: url });

describe('where demo says the server is', () => {
  it('follows PORT, and PUBLIC_URL, AUTH_URL and BASE_URL when set', () => {
    expect(urlsFor({})).toEqual(both('http://localhost:8080'));
    expect(urlsFor({ PORT: '9000' })).toEqual(both('http://localhost:9000'));
    expect(urlsFor({ PORT: '9000', PUBLIC_URL: 'https://results.acme.test' })).toEqual(both('https://results.acme.test'));
    expect(urlsFor({ AUTH_URL: 'https://login.acme.test', BASE_URL: 'https://api.acme.test' })).toEqual({
      authUrl: 'https://login.acme.test',
      baseUrl: 'https://api.acme.test',
    });
  });

  it('uses HOST when the server listens on one address that localhost does not reach', () => {
    expect(urlsFor({ HOST: '10.1.2.3', PORT: '9000' })).toEqual(both('http://10.1.2.3:9000'));
    expect(urlsFor({ HOST: 'fd00::5', PORT: '9000' })).toEqual(both('http://[fd00::5]:9000'));
    for (const host of ['0.0.0.0', '::', '127.0.0.1', '127.0.1.1', '::1', 'localhost']) {
      expect(urlsFor({ HOST: host, PORT: '9000' }), host).toEqual(both('http://localhost:9000'));
    }
    expect(urlsFor({ HOST: '10.1.2.3', PUBLIC_URL: 'https://results.acme.test' })).toEqual(both('https://results.acme.test'));
  });

  it('--url wins, and is refused unless it is an absolute http(s) URL', () => {
    expect(urlsFor({ PORT: '9000' }, 'http://127.0.0.1:9000/')).toEqual(both('http://127.0.0.1:9000'));
    for (const bad of ['localhost:9000', 'ftp://host', 'http://host/?q=1', 'http://user:pw@host']) {
      expect(() => urlsFor({}, bad), bad).toThrow(/^--url must/);
    }
  });
});
