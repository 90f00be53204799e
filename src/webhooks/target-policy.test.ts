import { describe, expect, it } from 'vitest';
import { checkTargetUrl, forbiddenAddress, resolveTarget } from './target-policy.js';

const strict = { allowHttp: false, allowPrivate: false };
const reason = (url: string, policy = strict) => {
  const r = checkTargetUrl(url, policy);
  return r.ok ? null : r.reason;
};

describe('webhook target policy (SSRF)', () => {
  it('accepts a public https url', () => {
    expect(reason('https://hooks.example.com/in?x=1')).toBeNull();
    expect(reason('https://93.184.215.14/in')).toBeNull();
    expect(reason('https://[2606:4700::1111]/in')).toBeNull();
  });

  it('refuses http unless allowed, and any other scheme', () => {
    expect(reason('http://hooks.example.com/in')).toBe('the url must be https');
    expect(reason('http://hooks.example.com/in', { allowHttp: true, allowPrivate: false })).toBeNull();
    expect(reason('ftp://hooks.example.com/in', { allowHttp: true, allowPrivate: false })).toBe('the url must be http or https');
    expect(reason('file:///etc/passwd')).toBe('the url must be https');
    expect(reason('not a url')).toBe('the url is not an absolute URL');
    expect(reason('https://user:pass@hooks.example.com/')).toBe('the url must not carry a user name or password');
  });

  it.each([
    ['https://127.0.0.1/', 'loopback'],
    ['https://2130706433/', 'loopback'], // decimal
    ['https://017700000001/', 'loopback'], // octal
    ['https://0x7f.1/', 'loopback'], // hex, short form
    ['https://127.1/', 'loopback'],
    ['https://10.0.0.1/', 'private'],
    ['https://172.16.5.4/', 'private'],
    ['https://192.168.1.1/', 'private'],
    ['https://169.254.169.254/latest/meta-data/', 'linkLocal'], // cloud metadata
    ['https://100.100.100.200/', 'carrierGradeNat'], // Alibaba's metadata, CGNAT
    ['https://0.0.0.0/', 'unspecified'],
    ['https://[::1]/', 'loopback'],
    ['https://[::]/', 'unspecified'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'], // IPv4-mapped
    ['https://[::ffff:a9fe:a9fe]/', 'linkLocal'], // IPv4-mapped metadata, in hex
    ['https://[64:ff9b::a00:1]/', 'private'], // NAT64 of 10.0.0.1
    ['https://[fd00:ec2::254]/', 'uniqueLocal'], // AWS's IPv6 metadata
    ['https://[fe80::1]/', 'linkLocal'],
  ])('refuses %s (%s)', (url, range) => {
    expect(reason(url)).toMatch(new RegExp(`is a ${range} address\\)$`));
  });

  it('refuses local names', () => {
    expect(reason('https://localhost/')).toBe("the url's host localhost is not a public name");
    expect(reason('https://api.localhost/')).toBe("the url's host api.localhost is not a public name");
    expect(reason('https://intranet/')).toBe("the url's host intranet is not a public name");
  });

  it('WEBHOOKS_ALLOW_PRIVATE_TARGETS accepts private targets and http', () => {
    expect(reason('http://127.0.0.1:8080/', { allowHttp: false, allowPrivate: true })).toBeNull();
    expect(reason('http://localhost/', { allowHttp: false, allowPrivate: true })).toBeNull();
  });

  it('refuses a name when any address it resolves to is not public', async () => {
    const lookup = async (name: string) =>
      name === 'split.example.com'
        ? [{ address: '93.184.215.14', family: 4 }, { address: '10.1.1.1', family: 4 }]
        : [{ address: '2606:4700::1111', family: 6 }];
    await expect(resolveTarget('split.example.com', { ...strict, lookup })).rejects.toThrow('split.example.com resolves to a non-public address (10.1.1.1 is a private address)');
    await expect(resolveTarget('ok.example.com', { ...strict, lookup })).resolves.toEqual([{ address: '2606:4700::1111', family: 6 }]);
    await expect(resolveTarget('localhost', strict)).rejects.toThrow(/localhost resolves to a non-public address|localhost does not resolve/);
    expect(forbiddenAddress('8.8.8.8')).toBeNull();
  });
});
