import { EXTENSION } from './extension.js';
import type { AuthorizationServers } from '../oauth/authorization-servers.js';
import { SERVER_SCOPES, WEBHOOKS_SCOPE } from '../scope-names.js';

const WEBHOOKS_SCOPE_DESCRIPTION = "Manage the caller's own webhook subscriptions (asked for explicitly).";

/**
 * The OpenAPI security schemes, and the requirements routes declare with them. The names are
 * what Swagger UI's "Authorize" dialog and generated clients show.
 */
export const SCHEME = {
  customServer: 'oauth2',
  defaultServer: 'oauth2Default',
  bearer: 'bearerAuth',
  tokenHeader: 'tokenHeader',
  clientBasic: 'clientBasic',
} as const;

type SecurityRequirement = Record<string, string[]>;

/**
 * Results API: a token of either server, sent as `Authorization: Bearer` (what the OAuth 2.0
 * schemes and bearerAuth mean) or in the `token` header. Any one of them is enough.
 */
export const API_SECURITY: SecurityRequirement[] = [
  { [SCHEME.customServer]: [SERVER_SCOPES.custom] },
  { [SCHEME.defaultServer]: [SERVER_SCOPES.default] },
  { [SCHEME.bearer]: [] },
  { [SCHEME.tokenHeader]: [] },
];

/**
 * Token, introspection and revocation endpoints: the client authenticates with HTTP Basic
 * (client_secret_basic) or with form keys (client_secret_post, the empty requirement).
 */
/** The webhooks extension: a token of either server that was granted webhooks:manage. */
export const WEBHOOKS_SECURITY: SecurityRequirement[] = [
  { [SCHEME.customServer]: [WEBHOOKS_SCOPE] },
  { [SCHEME.defaultServer]: [WEBHOOKS_SCOPE] },
  { [SCHEME.bearer]: [] },
  { [SCHEME.tokenHeader]: [] },
];

export const CLIENT_AUTHENTICATION_SECURITY: SecurityRequirement[] = [{ [SCHEME.clientBasic]: [] }, {}];

/** Discovery and keys are public. */
export const PUBLIC_SECURITY: SecurityRequirement[] = [];

export function securitySchemes(servers: AuthorizationServers) {
  const { custom, default: byDefault } = servers;
  return {
    [SCHEME.customServer]: {
      type: 'oauth2',
      description:
        `Client-credentials grant at the custom authorization server \`${custom.id}\` (form B). ` +
        'Its tokens are valid on every Results API endpoint, sent as `Authorization: Bearer <token>`.',
      flows: {
        clientCredentials: {
          tokenUrl: `${custom.issuer}/v1/token`,
          scopes: { [custom.scope]: 'Read workspaces, tests and session results.', [WEBHOOKS_SCOPE]: WEBHOOKS_SCOPE_DESCRIPTION },
        },
      },
    },
    [SCHEME.defaultServer]: {
      type: 'oauth2',
      description:
        'Client-credentials grant at the `default` authorization server (form A). ' +
        'Its tokens are valid on every Results API endpoint too.',
      flows: {
        clientCredentials: {
          tokenUrl: `${byDefault.issuer}/v1/token`,
          scopes: { [byDefault.scope]: 'Read workspaces, tests and session results.', [WEBHOOKS_SCOPE]: WEBHOOKS_SCOPE_DESCRIPTION },
        },
      },
    },
    [SCHEME.bearer]: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'Form B: `Authorization: Bearer <token>`, a token from either authorization server.',
    },
    [SCHEME.tokenHeader]: {
      type: 'apiKey',
      in: 'header',
      name: 'token',
      description:
        'Extension (form A): `token: <token>`, a token from either authorization server. Never together with Authorization. ' +
        'The real contract knows only bearerAuth.',
      ...EXTENSION,
    },
    [SCHEME.clientBasic]: {
      type: 'http',
      scheme: 'basic',
      description:
        'client_secret_basic (RFC 6749 §2.3.1): client id and secret, each form-urlencoded, as HTTP Basic credentials. ' +
        'Or send `client_id` and `client_secret` as form keys instead (client_secret_post), never both.',
    },
  };
}
