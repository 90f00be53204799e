import type { SessionRow } from '../admin-api.js';
import { href } from '../router.js';
import { Page, formatTime } from '../ui.js';

/**
 * The sessions the test pages have listed, by test and session id. The admin API has no route
 * for one session yet, so the session page shows what its test's list said.
 */
const listed = new Map<string, SessionRow>();
const keyOf = (testId: string, sessionId: string) => `${testId}/${sessionId}`;

export function rememberSession(testId: string, session: SessionRow): void {
  listed.set(keyOf(testId, session.sessionId), session);
}

/**
 * One session: its details, then its transcript and recording. Those two are being built
 * (transcripts, media); each gets its section here once the admin API serves it.
 */
export function SessionPage({ testId, sessionId }: { testId: string; sessionId: string }) {
  const session = listed.get(keyOf(testId, sessionId));
  return (
    <Page title="Session">
      <p class="breadcrumb">
        <a href={href(`/tests/${testId}`)}>Back to the test's sessions</a>
      </p>
      {session ? (
        <dl class="details">
          <dt>Session id</dt>
          <dd class="mono">{session.sessionId}</dd>
          <dt>Status</dt>
          <dd>{session.status}</dd>
          <dt>Audience</dt>
          <dd class="mono">{session.audienceId ?? '—'}</dd>
          <dt>Started</dt>
          <dd>{formatTime(session.startTime)}</dd>
          <dt>Finished</dt>
          <dd>{formatTime(session.finishTime)}</dd>
        </dl>
      ) : (
        <p>
          Session <span class="mono">{sessionId}</span>: open it from <a href={href(`/tests/${testId}`)}>its test's session list</a> to see its
          details.
        </p>
      )}
      <h2>Recording and transcript</h2>
      <p class="placeholder">The admin API serves no recordings or transcripts yet; they will show here.</p>
    </Page>
  );
}
