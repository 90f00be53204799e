import { ResultsApiError, ResultsNetworkError, parseErrorBody } from './errors.js';
import { retryAfterSeconds, retryDelayMs, type AttemptFailure, type RetryPolicy } from './retry.js';
import type { CallOptions, FetchFunction } from './types.js';

/** One HTTP request (its success a JSON body, or text for `Transport.text`). */
export interface JsonRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Whether sending it twice is harmless, so a lost response or a 5xx may be retried. */
  repeatable: boolean;
}

/** A call's cancellation: the caller's signal and its time limit, as one signal. */
export interface CallScope {
  signal: AbortSignal;
  /** Wall-clock time (Date.now()) after which no retry is worth waiting for. */
  deadline: number;
}

/** What a Transport is built from (the client's options, resolved). */
export interface TransportOptions {
  fetch: FetchFunction;
  policy: RetryPolicy;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  timeoutMs: number;
}

/** Sends requests with the retry policy, and turns failures into the SDK's errors. */
export class Transport {
  constructor(private readonly options: TransportOptions) {}

  /** Combines the caller's signal and time limit; a limit of 0 or Infinity means none. */
  scope(call: CallOptions = {}): CallScope {
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs;
    const signals: AbortSignal[] = call.signal ? [call.signal] : [];
    const limited = Number.isFinite(timeoutMs) && timeoutMs > 0;
    if (limited) signals.push(AbortSignal.timeout(timeoutMs));
    const signal = signals.length === 1 ? signals[0]! : signals.length === 0 ? new AbortController().signal : AbortSignal.any(signals);
    return { signal, deadline: limited ? Date.now() + timeoutMs : Infinity };
  }

  /** Sends `request`, retrying as the policy allows, and returns its parsed JSON body. */
  async json(request: JsonRequest, scope: CallScope): Promise<unknown> {
    const { response, text } = await this.send(request, scope);
    const body = parseJson(text);
    if (body === undefined) {
      throw new ResultsApiError({ method: request.method, url: request.url.split('?')[0]!, status: response.status, reason: 'the body is not JSON', ...requestIdOf(response) });
    }
    return body;
  }

  /** Sends `request`, retrying as the policy allows, and returns its body as text (a WebVTT transcript). */
  async text(request: JsonRequest, scope: CallScope): Promise<string> {
    return (await this.send(request, scope)).text;
  }

  /** Sends `request` until it succeeds (a 2xx, returned with its body read) or fails for good (thrown). */
  private async send(request: JsonRequest, scope: CallScope): Promise<{ response: Response; text: string }> {
    const { signal } = scope;
    const where = request.url.split('?')[0]!;
    for (let attempt = 0; ; attempt++) {
      signal.throwIfAborted();
      let response: Response;
      let text: string;
      try {
        response = await this.options.fetch(request.url, {
          method: request.method,
          headers: request.headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
          signal,
          // Tokens travel in headers; nothing here should be cached by the browser.
          cache: 'no-store',
        });
        text = await response.text();
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        await this.waitOrThrow({ kind: 'network' }, attempt, request, scope, () => new ResultsNetworkError(request.method, where, err));
        continue;
      }

      if (response.ok) return { response, text };
      const error = new ResultsApiError({
        method: request.method,
        url: where,
        status: response.status,
        ...parseErrorBody(parseJson(text)),
        ...retryAfterOf(response),
        ...requestIdOf(response),
      });
      await this.waitOrThrow({ kind: 'status', status: response.status, headers: response.headers }, attempt, request, scope, () => error);
    }
  }

  /** Waits before the next attempt, or throws when the failure is final (or a wait would outlast the call). */
  private async waitOrThrow(
    failure: AttemptFailure,
    attempt: number,
    request: JsonRequest,
    scope: CallScope,
    error: () => Error,
  ): Promise<void> {
    const delay = retryDelayMs(failure, attempt, { repeatable: request.repeatable, policy: this.options.policy, now: Date.now() });
    // Waiting past the time limit would only turn a clear answer (e.g. 429) into a timeout.
    if (delay === undefined || Date.now() + delay > scope.deadline) throw error();
    await this.options.sleep(delay, scope.signal);
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function requestIdOf(response: Response): { requestId?: string } {
  const id = response.headers.get('x-request-id');
  return id ? { requestId: id } : {};
}

function retryAfterOf(response: Response): { retryAfterSeconds?: number } {
  const seconds = retryAfterSeconds(response.headers);
  return seconds === undefined ? {} : { retryAfterSeconds: seconds };
}
