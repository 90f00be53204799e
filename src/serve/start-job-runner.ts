import { clipJobHandler } from '../clips/clip-job.js';
import { reelJobHandler } from '../clips/reel-job.js';
import type { Metrics } from '../observability/metrics.js';
import type { Runtime } from '../runtime.js';
import { CLIP_JOB } from '../store/clips.js';
import { REEL_JOB } from '../store/reels.js';
import { JobRunner, type JobHandler, type JobRunnerOptions } from '../jobs/job-runner.js';

/** Every kind of background job, and what does it. */
export function jobHandlers(runtime: Pick<Runtime, 'store' | 'media'>): Record<string, JobHandler> {
  const { store, media } = runtime;
  return {
    [CLIP_JOB]: clipJobHandler({ clips: store.clips, videos: store.videos, media: media.storage }),
    [REEL_JOB]: reelJobHandler({ reels: store.reels, clips: store.clips, videos: store.videos, media: media.storage }),
  };
}

/**
 * Starts this server process's job runner (JOB_CONCURRENCY jobs at once; none when 0).
 * Every server process runs one, so the work spreads over all of them.
 */
export function startJobRunner(runtime: Runtime, metrics: Metrics, log: JobRunnerOptions['log']): JobRunner | undefined {
  const { jobConcurrency, jobLeaseSeconds } = runtime.config;
  if (jobConcurrency === 0) return undefined;
  const runner = new JobRunner(runtime.store.jobs, jobHandlers(runtime), {
    concurrency: jobConcurrency,
    leaseMs: jobLeaseSeconds * 1000,
    log,
    observer: metrics.jobObserver,
  });
  runner.start();
  return runner;
}
