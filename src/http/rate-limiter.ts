import type { Clock } from '../clock.js';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** Counts hits per key in fixed windows. Pluggable: in memory per process, or shared (Redis). */
export interface RateLimiter {
  hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  /**
   * Takes back one hit on `key` in the current window (never below zero): an attempt counted
   * up front, so concurrent ones cannot slip past the limit, that turned out not to count.
   */
  refund(key: string, windowSeconds: number): Promise<void>;
}

/** One process's counters. Windows are aligned to the clock so every key resets predictably. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { windowStart: number; count: number }>();

  constructor(private readonly clock: Clock) {}

  async hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const now = this.clock.now();
    const windowMs = windowSeconds * 1000;
    const windowStart = now - (now % windowMs);
    let entry = this.windows.get(key);
    if (!entry || entry.windowStart !== windowStart) {
      if (this.windows.size > 100_000) this.sweep(windowStart);
      entry = { windowStart, count: 0 };
      this.windows.set(key, entry);
    }
    entry.count++;
    return {
      allowed: entry.count <= limit,
      limit,
      remaining: Math.max(0, limit - entry.count),
      resetSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
    };
  }

  async refund(key: string, windowSeconds: number): Promise<void> {
    const now = this.clock.now();
    const entry = this.windows.get(key);
    if (entry && entry.windowStart === now - (now % (windowSeconds * 1000)) && entry.count > 0) entry.count--;
  }

  private sweep(currentWindowStart: number): void {
    for (const [key, entry] of this.windows) if (entry.windowStart !== currentWindowStart) this.windows.delete(key);
  }
}
