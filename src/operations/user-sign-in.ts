import { Type, type Static } from '@sinclair/typebox';
import { hashPassword, passwordProblem } from '../sign-in/passwords.js';
import { newSecretToken, tokenHash } from '../sign-in/secret-tokens.js';
import { StoreConflictError } from '../store/conflicts.js';
import type { Actor } from '../store/store.js';
import type { OperationDeps } from './deps.js';
import { Time, userView, UserView } from './views.js';
import { isoTime } from '../iso-time.js';

/** The page a user's setup link opens, under AUTH_URL; the token rides in the fragment, which browsers never send. */
export const USER_SETUP_PATH = '/account/setup';

/** An invitation or a reset link works once, within a week. */
export const USER_SETUP_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const UserSetupLinkView = Type.Object(
  {
    user: UserView,
    created: Type.Boolean({ description: 'Whether the user was created by this invitation.' }),
    setupLink: Type.String({ description: 'One-time link: the user opens it to choose a password. Shown once.' }),
    expiresAt: Time,
  },
  { title: 'UserSetupLink' },
);
export type UserSetupLinkView = Static<typeof UserSetupLinkView>;

/**
 * A one-time setup link for an API user: `invite` creates the user when missing (`users
 * invite`), otherwise the user must exist (`users reset-link`, a forgotten password). The
 * earlier link stops working; the password stays until the new link is used.
 */
export async function issueUserSetupLink(d: OperationDeps, email: string, mode: 'invite' | 'reset', by: Actor): Promise<UserSetupLinkView> {
  const token = newSecretToken();
  const expiresAt = d.clock.now() + USER_SETUP_LINK_TTL_MS;
  const { user, created } = await d.store.userAccounts.issueSetupLink(email, tokenHash(token), expiresAt, mode === 'invite', by);
  return { user: userView(user), created, setupLink: `${d.config.authUrl}${USER_SETUP_PATH}#token=${token}`, expiresAt: isoTime(expiresAt) };
}

/** Sets an API user's password (`users set-password`, for scripts and tests); refuses a weak one. */
export async function setUserPassword(d: OperationDeps, email: string, password: string, by: Actor): Promise<Static<typeof UserView>> {
  const weak = passwordProblem(password);
  if (weak) throw new StoreConflictError('out_of_range', weak);
  return userView(await d.store.userAccounts.setPassword(email, await hashPassword(password), by));
}

/** Turns an API user's two-step sign-in off (a lost phone). */
export const resetUserTotp = async (d: OperationDeps, email: string, by: Actor): Promise<Static<typeof UserView>> =>
  userView(await d.store.userAccounts.resetTotp(email, by));
