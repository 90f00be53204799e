import type { AccessReads } from '../access/access-cache.js';
import type { GuessingThrottle } from '../access/guessing-throttle.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import type { Metrics } from '../observability/metrics.js';
import type { Store } from '../store/open-store.js';
import type { AccessTokenVerifier } from './access-tokens.js';
import type { AuthorizationServers } from './authorization-servers.js';
import type { SecretHasher } from './client-secrets.js';
import type { ProtectedResources } from './resource-indicators.js';
import type { KeyRing } from './signing-keys.js';

/** What the authorization servers' routes need. */
export interface OAuthDeps {
  config: Config;
  store: Store;
  clock: Clock;
  keys: KeyRing;
  hasher: SecretHasher;
  servers: AuthorizationServers;
  resources: ProtectedResources;
  verifier: AccessTokenVerifier;
  rateLimiter: RateLimiter;
  reads: AccessReads;
  metrics: Metrics;
  /** Counts failed client and app secrets (the `token` throttle): one per process, shared by the token, introspection and revocation endpoints. */
  secretThrottle: GuessingThrottle;
}
