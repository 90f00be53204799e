import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startSeededApp } from '../helpers/test-app.js';
import { authHeaders, decodeJws, forgeToken, mintToken, requestToken, serverOf } from '../helpers/tokens.js';

/** RFC 8707 resource indicators at the token endpoint, RFC 9728 metadata, and each resource accepting only its own tokens. */

const BASE = 'http://127.0.0.1:8080';
const API_METADATA = `${BASE}/.well-known/oauth-protected-resource`;

describe('RFC 8707 resource indicators and RFC 9728 metadata', async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 9, 0, 0));
  const { t, client } = await startSeededApp({ clock });
  const api = (token: string) => fetch(`${t.url}/usertesting/api/v1/workspaces`, { headers: authHeaders(token) });

  it.each(['A', 'B'] as const)('form %s: no resource keeps the server audience, and the token serves the REST API', async (form) => {
    const token = await mintToken(t, client, form);
    expect(decodeJws(token).payload.aud).toBe(serverOf(t, form).audience);
    expect((await api(token)).status).toBe(200);
  });

  it.each([
    ['the REST API', BASE, BASE],
    ['the REST API, with a trailing slash', `${BASE}/`, BASE],
    ['the MCP endpoint', `${BASE}/mcp`, `${BASE}/mcp`],
  ])('resource naming %s binds aud to its identifier', async (_name, resource, aud) => {
    for (const form of ['A', 'B'] as const) {
      const res = await requestToken(t, client, { form, resource });
      expect(res.status).toBe(200);
      const { access_token: token } = (await res.json()) as { access_token: string };
      expect(decodeJws(token).payload).toMatchObject({ aud, iss: serverOf(t, form).issuer });
    }
  });

  it('a REST API token serves the REST API', async () => {
    expect((await api(await mintToken(t, client, 'B', BASE))).status).toBe(200);
  });

  it('an MCP token is refused by the REST API: 401 invalid_token naming the REST metadata', async () => {
    const res = await api(await mintToken(t, client, 'B', `${BASE}/mcp`));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer realm="results-api", error="invalid_token", error_description="The access token was not issued for this resource", resource_metadata="${API_METADATA}"`,
    );
    expect(await res.json()).toEqual({ errorCode: 'UNAUTHORIZED', errorMessage: 'The access token was not issued for this resource; request one with its `resource`.' });
  });

  it('a token for a resource that is not ours is refused even when signed by us', async () => {
    const forged = await forgeToken(t, { clientId: client.clientId, claims: { aud: 'https://elsewhere.example/api' } });
    expect((await api(forged)).status).toBe(401);
    // The other server's audience is not this issuer's either.
    const crossed = await forgeToken(t, { clientId: client.clientId, form: 'A', claims: { aud: serverOf(t, 'B').audience } });
    expect((await api(crossed)).status).toBe(401);
  });

  it('the reuse window hands out a token only for the same resource', async () => {
    const rest = await mintToken(t, client, 'B', BASE);
    const mcp = await mintToken(t, client, 'B', `${BASE}/mcp`);
    expect(mcp).not.toBe(rest);
    expect(await mintToken(t, client, 'B', `${BASE}/mcp`)).toBe(mcp);
    expect(decodeJws(await mintToken(t, client, 'B')).payload.aud).toBe(serverOf(t, 'B').audience);
  });

  it.each([
    ['another host', 'https://evil.example/mcp', /issues tokens for http:\/\/127\.0\.0\.1:8080 and http:\/\/127\.0\.0\.1:8080\/mcp only/],
    ['a path of ours that is not a resource', `${BASE}/api/v2`, /only/],
    ['a relative reference', '/mcp', /absolute URI/],
    ['a fragment', `${BASE}/mcp#x`, /absolute URI without a fragment/],
    ['an empty value', '', /absolute URI/],
    ['a huge value', `${BASE}/${'a'.repeat(5000)}`, /absolute URI/],
    ['two resources', [BASE, `${BASE}/mcp`], /one resource/],
  ])('%s: 400 invalid_target', async (_name, resource, description) => {
    const res = await requestToken(t, client, { resource });
    expect(res.status).toBe(400);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_target');
    expect(body.error_description).toMatch(description);
  });

  it('the same resource twice is one resource', async () => {
    const res = await requestToken(t, client, { resource: [`${BASE}/mcp`, `${BASE}/mcp`] });
    expect(res.status).toBe(200);
  });

  it.each([
    ['REST API', '/.well-known/oauth-protected-resource', BASE, 'Results API'],
    ['MCP endpoint', '/.well-known/oauth-protected-resource/mcp', `${BASE}/mcp`, 'Results API MCP server'],
  ])('the %s metadata names the resource, both issuers, the scope and the bearer method', async (_name, path, resource, name) => {
    const res = await fetch(`${t.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(await res.json()).toEqual({
      resource,
      authorization_servers: [t.runtime.servers.custom.issuer, t.runtime.servers.default.issuer],
      scopes_supported: ['studies:read'],
      bearer_methods_supported: ['header'],
      resource_name: name,
      resource_documentation: `${BASE}/docs`,
    });
    // Each issuer named there has RFC 8414 metadata where RFC 8414 §3.1 puts it.
    for (const server of t.runtime.servers.all) {
      const meta = await fetch(`${t.url}/.well-known/oauth-authorization-server/oauth2/${server.id}`);
      expect(((await meta.json()) as { issuer: string }).issuer).toBe(server.issuer);
    }
  });

  it('every 401 of the REST API names its metadata', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer nope' }, { token: 'nope' }];
    for (const headers of attempts) {
      const res = await fetch(`${t.url}/api/v2/sessionResults?testId=x`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${API_METADATA}"`);
    }
  });
});
