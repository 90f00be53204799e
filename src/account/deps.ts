import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import type { Metrics } from '../observability/metrics.js';
import type { Store } from '../store/open-store.js';

/** What the account pages need. */
export interface AccountDeps {
  config: Config;
  store: Store;
  clock: Clock;
  rateLimiter: RateLimiter;
  metrics: Metrics;
}
