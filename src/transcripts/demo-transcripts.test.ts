import { describe, expect, it } from 'vitest';
import { DEMO_TEST_PLAN, demoSessions } from '../cli/demo.js';
import { demoTranscripts } from './demo-transcripts.js';
import { checkWebVtt } from '../store/webvtt.js';

describe('demoTranscripts', () => {
  it('gives completed sessions but every fourth a transcript that is valid WebVTT, the same on every run', () => {
    const sessions = demoSessions();
    const transcripts = demoTranscripts(DEMO_TEST_PLAN, sessions);
    const completed = sessions.filter((s) => s.status === 'COMPLETE');
    expect(transcripts.length).toBeGreaterThan(completed.length / 2);
    expect(transcripts.length).toBeLessThan(completed.length);
    for (const { sessionId, vtt } of transcripts) {
      expect(completed.map((s) => s.sessionId)).toContain(sessionId);
      const { cues } = checkWebVtt(new TextEncoder().encode(vtt));
      expect(cues).toBeGreaterThan(DEMO_TEST_PLAN.tasks.length);
    }
    expect(demoTranscripts(DEMO_TEST_PLAN, demoSessions())).toEqual(transcripts);
  });
});
