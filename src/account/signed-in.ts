import type { FastifyReply, FastifyRequest } from 'fastify';
import { signedInUser, type SignedIn } from './browser-session.js';
import type { AccountDeps } from './deps.js';
import { SIGN_IN_PATH } from './sign-in-route.js';

/** The signed-in user of a page, or a redirect to the sign-in form that comes back here (null). */
export async function requireSignedIn(request: FastifyRequest, reply: FastifyReply, deps: AccountDeps, returnTo: string): Promise<SignedIn | null> {
  const session = await signedInUser(request, deps);
  if (session) return session;
  await reply.redirect(`${SIGN_IN_PATH}?return_to=${encodeURIComponent(returnTo)}`, 303);
  return null;
}
