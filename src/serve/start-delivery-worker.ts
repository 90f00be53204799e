import type { Runtime } from '../runtime.js';
import { WebhookDeliveryWorker, type DeliveryOutcome, type DeliveryWorkerDeps } from '../webhooks/delivery-worker.js';
import { WebhookSender } from '../webhooks/sender.js';
import { targetPolicyOf, type NameLookup } from '../webhooks/target-policy.js';

/** The 10 s a receiver has to answer (Standard Webhooks' usual bound; GitHub allows 10 s too). */
export const SEND_TIMEOUT_MS = 10_000;
const POLL_MS = 250;

export interface RunningDeliveryWorker {
  worker: WebhookDeliveryWorker;
  stop(): Promise<void>;
}

/**
 * Starts this server process's webhook delivery (WEBHOOK_CONCURRENCY deliveries at once; none
 * when 0). Every server process runs one, so delivery spreads over all of them.
 */
export function startDeliveryWorker(
  runtime: Pick<Runtime, 'config' | 'store' | 'access' | 'reads' | 'clock'>,
  log: DeliveryWorkerDeps['log'],
  observer?: (outcome: DeliveryOutcome) => void,
  /** Tests only: a shorter timeout and poll, their own name resolution. */
  overrides: { timeoutMs?: number; pollMs?: number; lookup?: NameLookup } = {},
): RunningDeliveryWorker | undefined {
  const { config, store } = runtime;
  if (config.webhooks.concurrency === 0) return undefined;
  const policy = { ...targetPolicyOf(config), ...(overrides.lookup ? { lookup: overrides.lookup } : {}) };
  const sender = new WebhookSender({ policy, timeoutMs: overrides.timeoutMs ?? SEND_TIMEOUT_MS, perDestination: config.webhooks.perDestination });
  const worker = new WebhookDeliveryWorker(
    { deliveries: store.webhookDeliveries, batches: store.webhookBatches, access: runtime.access, reads: runtime.reads, sender, clock: runtime.clock, baseUrl: config.baseUrl, log, observer },
    { concurrency: config.webhooks.concurrency, leaseMs: config.webhooks.leaseSeconds * 1000, pollMs: overrides.pollMs ?? POLL_MS },
  );
  worker.start();
  return {
    worker,
    async stop() {
      await worker.stop();
      await sender.close();
    },
  };
}
