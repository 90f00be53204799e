import { Type, type Static } from '@sinclair/typebox';
import { isoTime } from '../iso-time.js';
import { publishedUntil } from '../oauth/signing-keys.js';
import type { AuditEvent, Credential, Member, SigningKey, Test, User, Workspace } from '../store/store.js';

/**
 * What an operation answers, in one shape for both of its callers: the CLI prints it with
 * --json (or renders it for people) and the admin API sends it. Each schema documents the
 * admin API's responses; each function makes the value. Never a secret's hash or a private key.
 */

export const Time = Type.String({ format: 'date-time' });
export const NullableTime = Type.Union([Time, Type.Null()]);

export const UserView = Type.Object(
  { id: Type.String({ format: 'uuid' }), email: Type.String(), status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]), createdAt: Time },
  { title: 'ApiUser' },
);
export const userView = (u: User): Static<typeof UserView> => ({ id: u.id, email: u.email, status: u.status, createdAt: isoTime(u.createdAt) });

export const CredentialView = Type.Object(
  {
    clientId: Type.String(),
    email: Type.String(),
    userId: Type.String({ format: 'uuid' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
    activeSecrets: Type.Integer({ minimum: 0 }),
    createdAt: Time,
    lastUsedAt: NullableTime,
    revokedAt: NullableTime,
  },
  { title: 'Credential' },
);
export const credentialView = (c: Credential): Static<typeof CredentialView> => ({
  clientId: c.clientId,
  email: c.email,
  userId: c.userId,
  status: c.revokedAt === null ? 'active' : 'revoked',
  // A revoked credential's secrets no longer work, whatever their own expiry says.
  activeSecrets: c.revokedAt === null ? c.activeSecrets : 0,
  createdAt: isoTime(c.createdAt),
  lastUsedAt: isoTime(c.lastUsedAt),
  revokedAt: isoTime(c.revokedAt),
});

/** Where an API user mints tokens and reads results: what a new credential is useless without. */
export const WhereToUse = {
  authorizationServerId: Type.String(),
  tokenUrl: Type.String({ description: 'The custom authorization server (Bearer tokens).' }),
  defaultTokenUrl: Type.String({ description: 'The default authorization server (token header).' }),
  baseUrl: Type.String({ description: 'The Results API.' }),
};

export const PublicEndpoints = Type.Object(WhereToUse, {
  title: 'PublicEndpoints',
  description: 'Where API users get tokens and read results: what a new or rotated secret is handed over with.',
});

export const IssuedCredential = Type.Object(
  { clientId: Type.String(), clientSecret: Type.String({ description: 'Shown only this once: only its hash is kept.' }), email: Type.String(), createdAt: Time, ...WhereToUse },
  { title: 'IssuedCredential' },
);

export const RotatedCredential = Type.Object(
  {
    clientId: Type.String(),
    clientSecret: Type.String({ description: 'The new secret, shown only this once.' }),
    email: Type.String(),
    rotatedAt: Time,
    previousSecretExpiresAt: Time,
  },
  { title: 'RotatedCredential' },
);

export const RetiredCredential = Type.Object({ ...CredentialView.properties, retired: Type.Integer({ minimum: 0 }) }, { title: 'RetiredPrevious' });
export const RevokedCredential = Type.Object({ ...CredentialView.properties, alreadyRevoked: Type.Boolean() }, { title: 'RevokedCredential' });

export const WorkspaceView = Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String(), createdAt: Time }, { title: 'Workspace' });
export const workspaceView = (w: Workspace): Static<typeof WorkspaceView> => ({ id: w.id, name: w.name, createdAt: isoTime(w.createdAt) });

export const MemberView = Type.Object({ workspaceId: Type.String({ format: 'uuid' }), email: Type.String(), addedAt: Time }, { title: 'Member' });
export const memberView = (m: Member): Static<typeof MemberView> => ({ workspaceId: m.workspaceId, email: m.email, addedAt: isoTime(m.addedAt) });
export const AddedMember = Type.Object(
  { ...MemberView.properties, userExists: Type.Boolean({ description: 'Whether an API user has this email yet.' }) },
  { title: 'AddedMember' },
);
export const RemovedMember = Type.Object({ workspaceId: Type.String(), email: Type.String(), removed: Type.Literal(true) }, { title: 'RemovedMember' });

export const TestView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    workspaceId: Type.String({ format: 'uuid' }),
    title: Type.String(),
    productType: Type.String(),
    type: Type.String(),
    createdAt: Time,
    orderedAt: Time,
    orderedBy: Type.Union([Type.Object({ email: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }), Type.Null()]),
    plan: Type.Union([Type.Object({}, { additionalProperties: true, description: 'The test plan (see `tests plan set`).' }), Type.Null()]),
    sessionCount: Type.Integer({ minimum: 0 }),
  },
  { title: 'Test' },
);
export const testView = (t: Test): Static<typeof TestView> => ({
  id: t.id,
  workspaceId: t.workspaceId,
  title: t.title,
  productType: t.productType,
  type: t.type,
  createdAt: isoTime(t.createdAt),
  orderedAt: isoTime(t.orderedAt),
  orderedBy: t.orderedBy,
  plan: t.plan as Static<typeof TestView>['plan'],
  sessionCount: t.sessionCount,
});
export const ListedTest = Type.Object(
  { ...TestView.properties, sessionsByStatus: Type.Record(Type.String(), Type.Integer(), { description: 'Sessions of each status (the API lists COMPLETE only).' }) },
  { title: 'ListedTest' },
);

/**
 * A key as the operator sees it: never its private half. `published` means retired (no longer
 * signing) but still in the JWKS, because a token it signed may still be valid.
 */
export const KeyView = Type.Object(
  {
    kid: Type.String(),
    alg: Type.Literal('RS256'),
    createdAt: Time,
    retiredAt: NullableTime,
    state: Type.Union([Type.Literal('active'), Type.Literal('published'), Type.Literal('expired')]),
    publishedUntil: NullableTime,
  },
  { title: 'SigningKey' },
);
export function keyView(key: SigningKey, now: number, tokenTtlMs: number): Static<typeof KeyView> {
  const until = publishedUntil(key, tokenTtlMs);
  const state = key.retiredAt === null ? 'active' : now < until ? 'published' : 'expired';
  return {
    kid: key.kid,
    alg: key.alg,
    createdAt: isoTime(key.createdAt),
    retiredAt: isoTime(key.retiredAt),
    state,
    publishedUntil: Number.isFinite(until) ? isoTime(until) : null,
  };
}
export const RotatedKey = Type.Object({ ...KeyView.properties, previous: Type.Union([KeyView, Type.Null()]) }, { title: 'RotatedKey' });

/** The store records no secret, hash or key material in an event, so all of it may be shown. */
export const AuditEventView = Type.Object(
  { id: Type.Integer(), at: Time, actor: Type.String(), action: Type.String(), subject: Type.String(), details: Type.Record(Type.String(), Type.Unknown()) },
  { title: 'AuditEvent' },
);
export const auditEventView = (e: AuditEvent): Static<typeof AuditEventView> => ({
  id: e.id,
  at: isoTime(e.at),
  actor: e.actor,
  action: e.action,
  subject: e.subject,
  details: e.details,
});
