import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { AuthorizationServers } from '../oauth/authorization-servers.js';
import type { SecretHasher } from '../oauth/client-secrets.js';
import type { Store } from '../store/open-store.js';

/** What an operation needs: the runtime's parts, whether a CLI command or the admin API calls it. */
export interface OperationDeps {
  config: Config;
  store: Store;
  clock: Clock;
  hasher: SecretHasher;
  servers: AuthorizationServers;
}
