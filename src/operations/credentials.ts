import type { Static } from '@sinclair/typebox';
import { isoTime } from '../iso-time.js';
import { generateClientId, generateClientSecret } from '../oauth/client-secrets.js';
import { StoreConflictError } from '../store/conflicts.js';
import { emailKey } from '../store/email.js';
import type { Actor } from '../store/store.js';
import type { OperationDeps } from './deps.js';
import { credentialView, type CredentialView, type IssuedCredential, type PublicEndpoints, type RetiredCredential, type RevokedCredential, type RotatedCredential } from './views.js';

/** Client credentials of API users. Shared by `results-api credentials ...` and the admin API. */

/** Where an API user gets tokens and reads results: handed over with every new secret. */
export const publicEndpoints = (d: Pick<OperationDeps, 'config' | 'servers'>): Static<typeof PublicEndpoints> => ({
  authorizationServerId: d.servers.custom.id,
  tokenUrl: `${d.config.authUrl}/oauth2/${d.servers.custom.id}/v1/token`,
  defaultTokenUrl: `${d.config.authUrl}/oauth2/default/v1/token`,
  baseUrl: d.config.baseUrl,
});

/** A new client id and secret for an API user; the secret is in this answer and nowhere else. */
export async function issueCredential(d: OperationDeps, email: string, by: Actor): Promise<Static<typeof IssuedCredential>> {
  if (!(await d.store.credentials.findUserByEmail(email))) {
    throw new StoreConflictError('not_found', `no user with email ${email} (register it first: results-api users create --email ${email})`);
  }
  const clientId = generateClientId();
  const clientSecret = generateClientSecret();
  const credential = await d.store.credentials.createCredential({ clientId, email, secretHash: d.hasher.hash(clientSecret) }, by);
  return { clientId, clientSecret, email: credential.email, createdAt: isoTime(credential.createdAt), ...publicEndpoints(d) };
}

/** A second secret; the previous one keeps working for the grace period, or stops now. */
export async function rotateCredential(
  d: OperationDeps,
  clientId: string,
  retirePreviousNow: boolean,
  by: Actor,
): Promise<Static<typeof RotatedCredential>> {
  const clientSecret = generateClientSecret();
  const now = d.clock.now();
  const retireOthersAt = retirePreviousNow ? now : now + d.config.secretRotationGraceSeconds * 1000;
  const rotated = await d.store.credentials.addCredentialSecret({ clientId, secretHash: d.hasher.hash(clientSecret), retireOthersAt }, by);
  return { clientId, clientSecret, email: rotated.email, rotatedAt: isoTime(now), previousSecretExpiresAt: isoTime(retireOthersAt) };
}

export async function retirePreviousSecret(d: OperationDeps, clientId: string, by: Actor): Promise<Static<typeof RetiredCredential>> {
  const { credential, retired } = await d.store.credentials.retirePreviousSecrets(clientId, by);
  return { ...credentialView(credential), retired };
}

export async function revokeCredential(d: OperationDeps, clientId: string, by: Actor): Promise<Static<typeof RevokedCredential>> {
  const before = d.clock.now();
  const revoked = await d.store.credentials.revokeCredential(clientId, by);
  return { ...credentialView(revoked), alreadyRevoked: revoked.revokedAt! < before };
}

/** Every credential, or one API user's (never a secret). */
export async function listCredentials(d: OperationDeps, email?: string): Promise<Static<typeof CredentialView>[]> {
  const all = await d.store.credentials.listCredentials();
  const key = email === undefined ? undefined : emailKey(email);
  return (key === undefined ? all : all.filter((c) => emailKey(c.email) === key)).map(credentialView);
}
