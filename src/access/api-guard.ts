import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Clock } from '../clock.js';
import type { RateLimitConfig } from '../config.js';
import { apiErrors } from '../errors.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import { limitedAddress } from '../http/limited-address.js';
import { API_CACHE_CONTROL, integerHeaderValue, PRAGMA_NO_CACHE } from '../http/response-headers.js';
import type { AccessTokenVerifier } from '../oauth/access-tokens.js';
import type { AuthorizationServers } from '../oauth/authorization-servers.js';
import type { ProtectedResource } from '../oauth/resource-indicators.js';
import type { AccessReads } from './access-cache.js';
import { authenticateRequest } from './authenticate-request.js';
import type { Caller } from './caller.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API guard on every Results API request that got past it. */
    caller: Caller;
  }
}

export interface ApiGuardDeps {
  verifier: AccessTokenVerifier;
  servers: AuthorizationServers;
  /** The protected resource this guard stands in front of: its tokens' audience, its metadata. */
  resource: ProtectedResource;
  reads: AccessReads;
  clock: Clock;
  rateLimiter: RateLimiter;
  rateLimit: RateLimitConfig;
  /** Scopes of which a token must carry one (default: a read scope). */
  scopes?: readonly string[];
}

/**
 * Guards every route registered in `scope`: no caching, authentication, then the caller's
 * rate limit (per client credential, or per user with COMPAT=usertesting, as the real service counts). Runs before validation, so an unauthenticated caller learns nothing about
 * parameters. Requests that fail authentication count against their source address.
 */
export function registerApiGuard(scope: FastifyInstance, deps: ApiGuardDeps): void {
  scope.decorateRequest('caller', null as unknown as Caller);
  scope.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', API_CACHE_CONTROL).header('pragma', PRAGMA_NO_CACHE);
    let caller: Caller;
    try {
      caller = await authenticateRequest(request, deps, deps.scopes);
    } catch (err) {
      await applyRateLimit(`ip:${limitedAddress(request.ip)}`, reply, deps);
      throw err;
    }
    await applyRateLimit(deps.rateLimit.apiLimitedPer === 'user' ? `user:${caller.userId}` : `client:${caller.clientId}`, reply, deps);
    request.caller = caller;
  });
}

async function applyRateLimit(key: string, reply: FastifyReply, deps: ApiGuardDeps): Promise<void> {
  const d = await deps.rateLimiter.hit(`api:${key}`, deps.rateLimit.apiPerWindow, deps.rateLimit.windowSeconds);
  reply
    .header('x-ratelimit-limit', integerHeaderValue(d.limit))
    .header('x-ratelimit-remaining', integerHeaderValue(d.remaining))
    .header('x-ratelimit-reset', integerHeaderValue(d.resetSeconds));
  if (!d.allowed) throw apiErrors.rateLimited(d.resetSeconds, deps.rateLimit);
}
