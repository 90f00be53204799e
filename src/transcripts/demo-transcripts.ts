import type { SessionInput, TestPlan } from '../store/store.js';
import type { TranscriptInput } from '../store/transcripts.js';

/** What a participant might say while doing a task, by task type; the task's own text is read out first. */
const REMARKS: Record<string, string[]> = {
  launch_url: ['Okay, the page is loading.', 'I see the search bar at the top, so I will start there.'],
  blank: ['Adding these to the cart now.', 'Hmm, it asks me to create an account. I will look for a guest option.', 'There it is, at the bottom.'],
  multiple_choice: ['I noticed card and PayPal.', 'I did not see invoice anywhere.'],
  rating_scale: ['I would say a four.', 'It was mostly easy, the guest option was a bit hidden.'],
};

const timestamp = (ms: number): string => {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
};

/**
 * A think-out-loud transcript of one session, deterministic in `index`: the participant reads
 * each task of the plan and comments on it, one cue per sentence, with speaker voice tags.
 */
export function demoTranscript(plan: TestPlan, index: number): string {
  const cues: string[] = [];
  let at = 1_500 + (index % 7) * 250;
  for (const task of plan.tasks) {
    for (const [n, sentence] of [`Task: ${task.text}`, ...(REMARKS[task.taskType] ?? ['Okay.'])].entries()) {
      const length = 1_800 + ((sentence.length * 37 + index * 11 + n * 101) % 2_400);
      cues.push(`${timestamp(at)} --> ${timestamp(at + length)}\n<v Participant>${sentence}</v>`);
      at += length + 400 + ((index + n) % 5) * 150;
    }
  }
  return `WEBVTT\n\n${cues.join('\n\n')}\n`;
}

/**
 * Transcripts for the demo sessions: every completed session but each fourth one (so the
 * API's 404 for a session without a transcript can be tried too); `firstIndex` is the first
 * session's position, for sessions made in batches.
 */
export function demoTranscripts(plan: TestPlan, sessions: readonly SessionInput[], firstIndex = 0): TranscriptInput[] {
  return sessions
    .map((session, at) => ({ session, index: firstIndex + at }))
    .filter(({ session, index }) => session.status === 'COMPLETE' && index % 4 !== 3)
    .map(({ session, index }) => ({ sessionId: session.sessionId, vtt: demoTranscript(plan, index) }));
}
