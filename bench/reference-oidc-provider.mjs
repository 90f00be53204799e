/**
 * The peer for the token endpoint: oidc-provider (v9) issuing RS256 JWT access tokens by the
 * client-credentials grant, with the same client authentication (client_secret_post), the same
 * key size (RSA 2048), the same lifetime (3600 s) and the same audience and scope as ours.
 * Resource indicators (RFC 8707) are how oidc-provider issues JWT-format access tokens: a
 * default resource makes every token request name our audience without the client saying so.
 *
 * Usage: PORT=<port> node bench/reference-oidc-provider.mjs
 * Env: PORT (required), REF_CLIENT_ID, REF_CLIENT_SECRET (the client to register).
 * Prints one line `{"ready":true,"port":N}` on stdout once it listens.
 */
import console from 'node:console';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import process from 'node:process';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error('PORT must be set to a port number');
const clientId = process.env.REF_CLIENT_ID ?? 'bench-client';
const clientSecret = process.env.REF_CLIENT_SECRET ?? 'bench-secret-that-is-long-enough-0123456789';
const audience = 'api://results';
const scope = 'studies:read';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingJwk = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_post',
      scope,
    },
  ],
  jwks: { keys: [signingJwk] },
  scopes: [scope],
  ttl: { ClientCredentials: 3600 },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => audience,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope,
        audience,
        accessTokenTTL: 3600,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});

const server = provider.listen(port, '127.0.0.1', () => {
  console.log(JSON.stringify({ ready: true, port }));
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
