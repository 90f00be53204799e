import { createHash, randomUUID } from 'node:crypto';
import { generateClientId } from '../../src/oauth/client-secrets.js';
import { tokenHash } from '../../src/sign-in/secret-tokens.js';
import type { TestApp } from './test-app.js';

const REDIRECT_URI = 'http://127.0.0.1/callback';

/**
 * A user's access token for an app, with the scopes given (a family scope such as
 * `sessions:read` narrows it), bound to `resource` if given: the consent is recorded as the
 * authorization endpoint records it, and the code is exchanged at the real token endpoint.
 * For suites about what such a token reads; test/user-auth/ tests the flow itself.
 */
export async function userToken(t: TestApp, email: string, scopes: string[], resource: string | null = null): Promise<string> {
  const { store, servers } = t.runtime;
  const user = await store.credentials.findUserByEmail(email);
  if (!user) throw new Error(`no user ${email}`);
  const clientId = generateClientId();
  const by = { actor: 'test' };
  await store.apps.createApp({ clientId, name: 'Narrowed app', clientType: 'public', origin: 'registered', redirectUris: [REDIRECT_URI], scopes, secretHash: null }, by);
  const verifier = randomUUID() + randomUUID();
  const code = randomUUID();
  const codeChallenge = createHash('sha256').update(verifier).digest('base64url');
  await store.apps.createCode({ codeHash: tokenHash(code), clientId, userId: user.id, redirectUri: REDIRECT_URI, codeChallenge, scopes, resource, expiresAt: t.runtime.clock.now() + 60_000 });
  const res = await fetch(`${t.url}/oauth2/${servers.custom.id}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: clientId }),
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
