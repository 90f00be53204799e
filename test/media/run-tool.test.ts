/**
 * The one runner for ffmpeg and ffprobe (imports, probes, clip and reel jobs): its time limit,
 * its abort signal, its nice level and the errors it names. Exercised with ordinary commands
 * (sleep, sh), which behave as a stuck or failing ffmpeg would.
 */
import { describe, expect, it } from 'vitest';
import { MediaToolError, runTool } from '../../src/media/ffmpeg/run-tool.js';

describe('runTool', () => {
  it('returns what the tool printed', async () => {
    expect(await runTool('sh', ['-c', 'echo out; echo err >&2'], 5000)).toEqual({ stdout: 'out\n', stderr: 'err\n' });
  });

  it('kills a tool that outlives its time limit', async () => {
    const error = await runTool('sleep', ['30'], 200).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaToolError);
    expect(error).toMatchObject({ reason: 'timeout', message: expect.stringMatching(/^sleep took longer than/) as string });
  });

  it('kills the tool when the signal aborts and rejects with its reason', async () => {
    const controller = new AbortController();
    const reason = new Error('the job lease was lost');
    setTimeout(() => controller.abort(reason), 100);
    const started = Date.now();
    await expect(runTool('sleep', ['30'], 30_000, { signal: controller.signal })).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('names a failure by the last lines of stderr', async () => {
    const error = await runTool('sh', ['-c', 'echo one >&2; echo two >&2; echo three >&2; exit 3'], 5000).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'failed', message: 'sh failed: two; three', stderr: 'two; three' });
  });

  it('says when the tool is not installed', async () => {
    await expect(runTool('results-api-no-such-tool', [], 5000)).rejects.toMatchObject({ reason: 'missing' });
  });

  it('runs the tool at the nice level asked for', async () => {
    // The shell reads its own nice level after the runner has had time to set it.
    const { stdout } = await runTool('sh', ['-c', 'sleep 0.3; ps -o ni= -p $$'], 5000, { niceness: 10 });
    expect(Number(stdout.trim())).toBe(10);
  });
});
