import type { Config } from '../config.js';
import type { SettingsRepository } from '../store/settings.js';
import { SERVER_SCOPES } from '../scope-names.js';
import { randomBase62 } from './random.js';

/** One authorization server: `{auth_url}/oauth2/<id>`. */
export interface AuthorizationServer {
  id: string;
  /** The seed's request forms: A is the `default` server, B the custom one (and the real service's id). */
  form: 'A' | 'B';
  /** Which of the servers this is: `realId` answers at the real service's id, beside the configured one. */
  kind: 'default' | 'custom' | 'realId';
  issuer: string;
  audience: string;
  /** The one scope this server offers, granted when the request names none. */
  scope: string;
}

export interface AuthorizationServers {
  default: AuthorizationServer;
  custom: AuthorizationServer;
  all: readonly AuthorizationServer[];
  byId(id: string): AuthorizationServer | undefined;
  byIssuer(issuer: string): AuthorizationServer | undefined;
}


/**
 * The real service's custom authorization server id, as its documentation's form B token URL
 * names it: a script whose only change is the host gets its tokens here whatever AUTH_SERVER_ID is.
 */
export const REAL_AUTH_SERVER_ID = 'aus1p3vtd8vtm4Bxv0h8';

/** Okta-like id of the custom server: `aus` + 17 base62 characters. */
export const generateAuthServerId = (): string => `aus${randomBase62(17)}`;

/**
 * The custom server's id comes from AUTH_SERVER_ID, or is generated once and persisted,
 * so every process and every restart agrees on it (tokens name it in `iss`).
 */
export async function resolveAuthorizationServers(config: Config, settings: SettingsRepository): Promise<AuthorizationServers> {
  const customId = config.authServerId ?? (await settings.getOrSet('auth_server_id', generateAuthServerId()));
  const issuer = (id: string) => `${config.authUrl}/oauth2/${id}`;
  const formB = (id: string, kind: AuthorizationServer['kind']): AuthorizationServer =>
    ({ id, form: 'B', kind, issuer: issuer(id), audience: config.authServerAudience, scope: SERVER_SCOPES.custom });
  const servers: AuthorizationServer[] = [
    { id: 'default', form: 'A', kind: 'default', issuer: issuer('default'), audience: 'api://default', scope: SERVER_SCOPES.default },
    formB(customId, 'custom'),
    // Each id is its own issuer, as two Okta servers are: a token names the server that issued it.
    ...(customId === REAL_AUTH_SERVER_ID ? [] : [formB(REAL_AUTH_SERVER_ID, 'realId')]),
  ];
  return {
    default: servers[0]!,
    custom: servers[1]!,
    all: servers,
    byId: (id) => servers.find((s) => s.id === id),
    byIssuer: (iss) => servers.find((s) => s.issuer === iss),
  };
}
