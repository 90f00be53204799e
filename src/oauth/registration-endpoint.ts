import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PUBLIC_SECURITY } from '../docs/security-schemes.js';
import { serverDocs } from '../docs/tags.js';
import { oauthErrors } from '../errors.js';
import { FORM_BODY_LIMIT } from '../http/form-body.js';
import { jsonResponse } from '../http/response-headers.js';
import { limitedAddress } from '../http/limited-address.js';
import { generateClientId } from './client-secrets.js';
import type { AuthorizationServer } from './authorization-servers.js';
import type { OAuthDeps } from './oauth-deps.js';
import { redirectUriProblem } from './redirect-uris.js';
import { clientAuthenticatedResponses } from './responses.js';
import { userScopesOf } from '../scope-names.js';
import { allowAnyOrigin, registerAnyOriginPreflight } from './any-origin.js';

const RegistrationRequest = Type.Object(
  {
    redirect_uris: Type.Array(Type.String({ maxLength: 2000 }), { minItems: 1, maxItems: 10, description: 'https, or http on a loopback address (any port at use).' }),
    client_name: Type.Optional(Type.String({ maxLength: 100, description: 'Shown on the consent page, marked as not verified.' })),
    token_endpoint_auth_method: Type.Optional(Type.String({ description: 'Only `none`: dynamically registered apps are public (PKCE alone).' })),
    grant_types: Type.Optional(Type.Array(Type.String(), { maxItems: 5 })),
    response_types: Type.Optional(Type.Array(Type.String(), { maxItems: 5 })),
    scope: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: true, title: 'ClientRegistrationRequest', description: 'RFC 7591 §2 client metadata; members this server does not use are ignored.' },
);
type RegistrationRequest = Static<typeof RegistrationRequest>;

const RegistrationResponse = Type.Object(
  {
    client_id: Type.String(),
    client_id_issued_at: Type.Integer(),
    client_name: Type.String(),
    redirect_uris: Type.Array(Type.String()),
    grant_types: Type.Array(Type.String()),
    response_types: Type.Array(Type.String()),
    token_endpoint_auth_method: Type.Literal('none'),
    scope: Type.String(),
  },
  { title: 'ClientRegistrationResponse', description: 'RFC 7591 §3.2.1: the registered client.' },
);

const USER_GRANTS = ['authorization_code', 'refresh_token'];

// The refusals the token endpoint documents, but for client authentication (there is none here) and its success.
const { 200: _success, 401: _unauthenticated, ...refusals } = clientAuthenticatedResponses(
  { description: 'not used', schema: null },
  {
    badRequest: {
      codes: ['invalid_request', 'invalid_redirect_uri', 'invalid_client_metadata'],
      title: 'ClientRegistrationError',
      description: 'RFC 7591 §3.2.2: a redirect URI that is not https or loopback, or metadata this server cannot honour.',
    },
    throttled: true,
  },
);
const HOUR_SECONDS = 3600;

/** Why the metadata cannot be registered (RFC 7591 §3.2.2), or null; with what scopes. */
function checkMetadata(body: RegistrationRequest, offered: string[]): { scopes: string[] } {
  for (const uri of body.redirect_uris) {
    const problem = redirectUriProblem(uri, 'https-or-loopback');
    if (problem) throw oauthErrors.invalidRedirectUri(problem);
  }
  if (body.token_endpoint_auth_method !== undefined && body.token_endpoint_auth_method !== 'none') {
    throw oauthErrors.invalidClientMetadata('Dynamically registered apps are public: token_endpoint_auth_method must be none.');
  }
  if (body.grant_types?.some((g) => !USER_GRANTS.includes(g))) throw oauthErrors.invalidClientMetadata(`grant_types may name only ${USER_GRANTS.join(' and ')}.`);
  if (body.response_types?.some((r) => r !== 'code')) throw oauthErrors.invalidClientMetadata('response_types may name only code.');
  const requested = body.scope?.split(' ').filter((s) => s !== '');
  const scopes = requested && requested.length > 0 ? [...new Set(requested)] : offered;
  const unknown = scopes.filter((s) => !offered.includes(s));
  if (unknown.length > 0) throw oauthErrors.invalidClientMetadata(`Unknown scope ${unknown.join(' ').slice(0, 100)}; this server offers ${offered.join(' ')}.`);
  return { scopes };
}

/**
 * RFC 7591 dynamic client registration at `/oauth2/<id>/v1/register`, for public apps only
 * (an MCP client, a CLI): https or loopback redirect URIs, no secret, rate-limited per address.
 * Off with DYNAMIC_REGISTRATION=off. The app's name is its own claim, so the consent page says so.
 */
export function registerRegistrationEndpoint(app: FastifyInstance, server: AuthorizationServer, deps: OAuthDeps): void {
  if (!deps.config.clientRegistration.dynamic) return;
  const { tag, suffix } = serverDocs(server);
  void app.register(async (scope) => {
    // RFC 7591 §3.1: the request is JSON, the only JSON body this listener reads.
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(oauthErrors.invalidClientMetadata('The body is not valid JSON.'), undefined);
      }
    });
    const path = `/oauth2/${server.id}/v1/register`;
    registerAnyOriginPreflight(scope, { path, method: 'POST', tag, operationId: `registerClient${suffix}` });
    scope.post<{ Body: RegistrationRequest }>(
      path,
      {
        onRequest: allowAnyOrigin,
        schema: {
          summary: `Register a public app (RFC 7591, form ${server.form})`,
          description:
            'Dynamic client registration for public apps (MCP clients, command-line tools): https or loopback redirect URIs, ' +
            '`token_endpoint_auth_method` `none`, PKCE at every authorization. Rate-limited per address ' +
            '(`DYNAMIC_REGISTRATION_PER_ADDRESS` an hour); off with `DYNAMIC_REGISTRATION=off`.',
          tags: [tag],
          operationId: `registerClient${suffix}`,
          security: PUBLIC_SECURITY,
          consumes: ['application/json'],
          body: RegistrationRequest,
          response: { 201: jsonResponse('RFC 7591 §3.2.1: the registered public app.', RegistrationResponse), ...refusals },
        },
      },
      async (request, reply) => {
        const address = limitedAddress(request.ip);
        const limit = await deps.rateLimiter.hit(`register:ip:${address}`, deps.config.clientRegistration.dynamicPerAddressPerHour, HOUR_SECONDS);
        if (!limit.allowed) throw oauthErrors.tooManyRequests(limit.resetSeconds);
        const { scopes } = checkMetadata(request.body, userScopesOf(server.scope));
        const name = request.body.client_name?.trim() || 'Unnamed app';
        const registered = await deps.store.apps.createApp(
          { clientId: generateClientId(), name, clientType: 'public', origin: 'dynamic', redirectUris: [...new Set(request.body.redirect_uris)], scopes, secretHash: null },
          { actor: `registration:${address}` },
        );
        request.log.info({ clientId: registered.clientId }, 'app registered dynamically');
        reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
        return reply.code(201).send({
          client_id: registered.clientId,
          client_id_issued_at: Math.floor(registered.createdAt / 1000),
          client_name: registered.name,
          redirect_uris: registered.redirectUris,
          grant_types: USER_GRANTS,
          response_types: ['code'],
          token_endpoint_auth_method: 'none' as const,
          scope: scopes.join(' '),
        });
      },
    );
  });
}
