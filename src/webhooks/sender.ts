import type { Agent, request } from 'undici';
import { checkedLookup, checkTargetUrl, TargetRefusedError, type TargetPolicy } from './target-policy.js';

/** How one attempt went. */
export type SendOutcome =
  | { ok: true; status: number; durationMs: number }
  | { ok: false; status: number | null; durationMs: number; error: string; retryAfter?: string };

export interface SenderOptions {
  policy: TargetPolicy;
  /** Whole attempt, connection to last byte of the answer's headers and body. */
  timeoutMs: number;
  /** Requests in flight to one destination (scheme, host and port) from this process. */
  perDestination: number;
}

/** Bytes of a receiver's answer read (and dropped) before the connection is reused. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Sends webhook requests: POST, JSON, over keep-alive connections (one undici Agent, a pool
 * per destination of at most `perDestination` connections), connecting only to addresses the
 * target policy allows after resolution, never following a redirect, each attempt bounded by
 * `timeoutMs`. What a receiver answers is never logged nor kept, only its status.
 */
export class WebhookSender {
  /** undici (about 5 MB of heap) is loaded by the first send: a process that delivers nothing never holds it. */
  private client: Promise<{ agent: Agent; request: typeof request }> | undefined;

  constructor(private readonly options: SenderOptions) {}

  private connect() {
    const { options } = this;
    this.client ??= import('undici').then((undici) => ({
      request: undici.request,
      agent: new undici.Agent({
        connections: options.perDestination,
        keepAliveTimeout: 30_000,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        connect: { lookup: checkedLookup(options.policy), timeout: options.timeoutMs },
      }),
    }));
    return this.client;
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<SendOutcome> {
    const started = performance.now();
    const durationMs = () => Math.round(performance.now() - started);
    // Checked again as written: the policy may have changed, and an IP literal skips the lookup.
    const target = checkTargetUrl(url, this.options.policy);
    if (!target.ok) return { ok: false, status: null, durationMs: 0, error: `refused: ${target.reason}` };
    try {
      const { agent, request: send } = await this.connect();
      const answer = await send(target.url, {
        method: 'POST',
        dispatcher: agent,
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'results-api-webhooks' },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      await answer.body.dump({ limit: MAX_ANSWER_BYTES }).catch(() => undefined);
      const status = answer.statusCode;
      if (status >= 200 && status < 300) return { ok: true, status, durationMs: durationMs() };
      const retryAfter = answer.headers['retry-after'];
      return {
        ok: false,
        status,
        durationMs: durationMs(),
        error: status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`,
        ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
      };
    } catch (err) {
      return { ok: false, status: null, durationMs: durationMs(), error: describeFailure(err, this.options.timeoutMs) };
    }
  }

  async close(): Promise<void> {
    if (this.client) await (await this.client).agent.close();
  }
}

function describeFailure(err: unknown, timeoutMs: number): string {
  const e = err as Error & { code?: string; cause?: Error };
  if (e instanceof TargetRefusedError || e.cause instanceof TargetRefusedError) return `refused: ${(e.cause ?? e).message}`;
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || /Timeout/.test(e.code ?? '')) return `no answer within ${timeoutMs / 1000} s`;
  return `could not connect or send (${e.code ?? e.message})`;
}
