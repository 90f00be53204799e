import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Admin, AdminRole } from '../store/admins.js';
import type { Actor } from '../store/store.js';
import type { Store } from '../store/open-store.js';
import { SETUP_LINK_TTL_MS } from './policy.js';
import { newSecretToken, tokenHash } from '../sign-in/secret-tokens.js';

export interface SetupLink {
  admin: Admin;
  /** `<ADMIN_URL>/setup#token=...`: the token sits in the fragment, which browsers never send or log. */
  setupLink: string;
  expiresAt: number;
}

/** Why no setup link can be made, or null. */
export const setupLinkUnavailable = (config: Config): string | null =>
  config.admin ? null : 'the admin listener is off (ADMIN_PORT=off): a setup link would lead nowhere';

const linkOf = (config: Config, token: string): string => `${config.admin!.url}/setup#token=${token}`;

/** A new admin and its one-time setup link (the CLI's `admins create` and the API's POST /admin/api/admins). */
export async function createAdminWithLink(
  deps: { config: Config; store: Store; clock: Clock },
  input: { email: string; role: AdminRole },
  by: Actor,
): Promise<SetupLink> {
  const token = newSecretToken();
  const expiresAt = deps.clock.now() + SETUP_LINK_TTL_MS;
  const admin = await deps.store.admins.createAdmin({ id: randomUUID(), ...input, setupTokenHash: tokenHash(token), setupExpiresAt: expiresAt }, by);
  return { admin, setupLink: linkOf(deps.config, token), expiresAt };
}

/** A new setup link for an existing admin: the earlier link stops working. */
export async function renewSetupLink(deps: { config: Config; store: Store; clock: Clock }, email: string, by: Actor): Promise<SetupLink> {
  const token = newSecretToken();
  const expiresAt = deps.clock.now() + SETUP_LINK_TTL_MS;
  const admin = await deps.store.admins.renewSetupLink(email, tokenHash(token), expiresAt, by);
  return { admin, setupLink: linkOf(deps.config, token), expiresAt };
}
