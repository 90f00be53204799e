import { authenticateClient } from '../oauth/client-authentication.js';
import { generateClientId, generateClientSecret } from '../oauth/client-secrets.js';
import type { Runtime } from '../runtime.js';
import { emailKey } from '../store/email.js';
import type { Actor, User } from '../store/store.js';
import { resolveClientOptions } from './api-credentials.js';

/** The demo user's credential as `demo` leaves it. */
export interface DemoCredential {
  clientId: string;
  clientSecret: string;
  /** True when the credential saved in the credentials file (or the environment) still worked and was kept. */
  keptSavedCredential: boolean;
  /** The demo user's earlier credentials this run revoked (their secrets no longer work). */
  revokedClientIds: string[];
}

/**
 * The credential the other API-user commands would use (`--config FILE`, the default
 * credentials file, or RESULTS_API_CLIENT_ID/SECRET), if there is one. A file that cannot be
 * read (missing, empty because `demo --json >` is writing it right now, not JSON) is none.
 */
export async function savedCredential(config: string | undefined): Promise<{ clientId: string; clientSecret: string } | undefined> {
  try {
    const { clientId, clientSecret } = await resolveClientOptions({ ...(config === undefined ? {} : { config }) });
    return { clientId, clientSecret };
  } catch {
    return undefined;
  }
}

/**
 * Keeps the saved credential when it still authenticates as the demo user, so running `demo`
 * again never breaks the scripts and commands that use it; otherwise (or when `fresh` asks
 * for it) issues a new one. A user holds one active credential, so the earlier one is revoked.
 */
export async function demoCredential(
  rt: Pick<Runtime, 'store' | 'hasher' | 'clock'>,
  user: User,
  options: { saved: { clientId: string; clientSecret: string } | undefined; fresh: boolean },
  by: Actor,
): Promise<DemoCredential> {
  const { store } = rt;
  if (options.saved && !options.fresh) {
    const auth = await authenticateClient({ ...options.saved, method: 'client_secret_post' }, rt);
    if (auth.ok && auth.client.userId === user.id) return { ...options.saved, keptSavedCredential: true, revokedClientIds: [] };
  }
  // The secret of an earlier run is stored nowhere we can read, so the only way to print one
  // that works is to replace the credential.
  const revokedClientIds: string[] = [];
  for (const c of await store.credentials.listCredentials()) {
    if (emailKey(c.email) === emailKey(user.email) && c.revokedAt === null) {
      await store.credentials.revokeCredential(c.clientId, by);
      revokedClientIds.push(c.clientId);
    }
  }
  const clientId = generateClientId();
  const clientSecret = generateClientSecret();
  await store.credentials.createCredential({ clientId, email: user.email, secretHash: rt.hasher.hash(clientSecret) }, by);
  return { clientId, clientSecret, keptSavedCredential: false, revokedClientIds };
}
