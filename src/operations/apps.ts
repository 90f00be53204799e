import { Type, type Static } from '@sinclair/typebox';
import { generateClientId, generateClientSecret } from '../oauth/client-secrets.js';
import { redirectUriProblem } from '../oauth/redirect-uris.js';
import { FAMILY_SCOPES, READ_SCOPES } from '../scope-names.js';
import { isoTime } from '../iso-time.js';
import type { App, ClientType } from '../store/apps.js';
import { conflict, StoreConflictError } from '../store/conflicts.js';
import type { Actor } from '../store/store.js';
import type { OperationDeps } from './deps.js';
import { NullableTime, Time } from './views.js';

/** Every scope an app may be allowed to ask a user for. */
export const APP_SCOPES: readonly string[] = [...READ_SCOPES, ...FAMILY_SCOPES];

export const AppView = Type.Object(
  {
    clientId: Type.String(),
    name: Type.String(),
    clientType: Type.Union([Type.Literal('confidential'), Type.Literal('public')]),
    origin: Type.Union([Type.Literal('registered'), Type.Literal('dynamic'), Type.Literal('metadata')], {
      description: 'registered by support staff, by dynamic client registration (RFC 7591), or read from a client ID metadata document',
    }),
    redirectUris: Type.Array(Type.String()),
    scopes: Type.Array(Type.String()),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
    createdAt: Time,
    revokedAt: NullableTime,
  },
  { title: 'App' },
);
export type AppView = Static<typeof AppView>;

export const RegisteredAppView = Type.Object(
  { app: AppView, clientSecret: Type.Union([Type.String(), Type.Null()], { description: 'A confidential app\'s secret, shown this once; null for a public app.' }) },
  { title: 'RegisteredApp' },
);
export type RegisteredAppView = Static<typeof RegisteredAppView>;

export const appView = (a: App): AppView => ({
  clientId: a.clientId,
  name: a.name,
  clientType: a.clientType,
  origin: a.origin,
  redirectUris: a.redirectUris,
  scopes: a.scopes,
  status: a.revokedAt === null ? 'active' : 'revoked',
  createdAt: isoTime(a.createdAt),
  revokedAt: isoTime(a.revokedAt),
});

export interface AppInput {
  name: string;
  redirectUris: string[];
  scopes: string[];
  clientType: ClientType;
}

const invalid = (message: string) => new StoreConflictError('out_of_range', message);

/** Why an app's name, redirect URIs or scopes cannot be registered, or null. */
export function appInputProblem(input: AppInput, redirectKinds: 'any' | 'https-or-loopback' = 'any'): string | null {
  const name = input.name.trim();
  if (name === '' || name.length > 100 || [...name].some((c) => c < ' ' || c === '\x7f')) return 'the name must be 1 to 100 printable characters';
  if (input.redirectUris.length === 0 || input.redirectUris.length > 10) return 'an app has 1 to 10 redirect URIs';
  for (const uri of input.redirectUris) {
    const problem = redirectUriProblem(uri, redirectKinds);
    if (problem) return problem;
  }
  if (input.scopes.length === 0) return `an app is allowed at least one scope: ${APP_SCOPES.join(', ')}`;
  const unknown = input.scopes.filter((s) => !APP_SCOPES.includes(s));
  if (unknown.length > 0) return `unknown scope ${unknown.join(', ')}: the scopes are ${APP_SCOPES.join(', ')}`;
  return null;
}

/**
 * Registers a partner app (`apps register`, the admin API): a confidential app gets a secret,
 * shown once and stored only as a keyed hash; a public app (a native or browser app) has none
 * and proves itself with PKCE alone.
 */
export async function registerApp(d: OperationDeps, input: AppInput, by: Actor): Promise<RegisteredAppView> {
  const problem = appInputProblem(input);
  if (problem) throw invalid(problem);
  const clientSecret = input.clientType === 'confidential' ? generateClientSecret() : null;
  const app = await d.store.apps.createApp(
    {
      clientId: generateClientId(),
      name: input.name.trim(),
      clientType: input.clientType,
      origin: 'registered',
      redirectUris: [...new Set(input.redirectUris)],
      scopes: [...new Set(input.scopes)],
      secretHash: clientSecret === null ? null : d.hasher.hash(clientSecret),
    },
    by,
  );
  return { app: appView(app), clientSecret };
}

export const listApps = async (d: OperationDeps): Promise<AppView[]> => (await d.store.apps.listApps()).map(appView);

/** Revokes an app: every token any user granted it stops working, and no user can authorize it again. */
export const revokeApp = async (d: OperationDeps, clientId: string, by: Actor): Promise<AppView> => appView(await d.store.apps.revokeApp(clientId, by));

export const ApprovalView = Type.Object(
  {
    clientId: Type.String(),
    name: Type.String(),
    scopes: Type.Array(Type.String(), { description: 'Every scope of the user\'s live grants of the app.' }),
    approvedAt: Time,
    lastUsedAt: NullableTime,
  },
  { title: 'Approval', description: 'An app an API user approved and has not revoked, as the user sees it on their page.' },
);
export type ApprovalView = Static<typeof ApprovalView>;

/** The apps an API user approved and has not revoked (what their own page lists). */
export async function listUserApprovals(d: OperationDeps, email: string): Promise<ApprovalView[]> {
  const user = await d.store.credentials.findUserByEmail(email);
  if (!user) throw conflict.noUser(email);
  return (await d.store.apps.approvedApps(user.id)).map((a) => ({ ...a, approvedAt: isoTime(a.approvedAt), lastUsedAt: isoTime(a.lastUsedAt) }));
}

export const ApprovalRevokedView = Type.Object(
  {
    email: Type.String(),
    clientId: Type.String(),
    revokedGrants: Type.Integer({ minimum: 1, description: 'How many of the user\'s grants of the app were revoked, with every token issued through them.' }),
  },
  { title: 'ApprovalRevoked' },
);
export type ApprovalRevokedView = Static<typeof ApprovalRevokedView>;

/**
 * Takes back an API user's approval of an app for them, as the user's own Revoke button does:
 * every grant of the app by that user is revoked with its tokens; the user may approve it again.
 */
export async function revokeUserApproval(d: OperationDeps, email: string, clientId: string, by: Actor): Promise<ApprovalRevokedView> {
  const user = await d.store.credentials.findUserByEmail(email);
  if (!user) throw conflict.noUser(email);
  const revokedGrants = await d.store.apps.revokeUserApp(user.id, clientId, by);
  if (revokedGrants === 0) throw conflict.noApproval(user.email, clientId);
  return { email: user.email, clientId, revokedGrants };
}
