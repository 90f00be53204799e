import { testsApi } from '../admin-api.js';
import { href } from '../router.js';
import { LoadedView, Page, formatTime, useLoad } from '../ui.js';

/**
 * One session: its details, then its transcript and recording. Those two are being built
 * (transcripts, media); each gets its section here once the admin API serves it.
 */
export function SessionPage({ testId, sessionId }: { testId: string; sessionId: string }) {
  const session = useLoad(() => testsApi.session(testId, sessionId), [testId, sessionId]);
  return (
    <Page title="Session">
      <p class="breadcrumb">
        <a href={href(`/tests/${testId}`)}>Back to the test</a>
      </p>
      <LoadedView loaded={session}>
        {(s) => (
          <dl class="details">
            <dt>Session id</dt>
            <dd class="mono">{s.sessionId}</dd>
            <dt>Status</dt>
            <dd>{s.status}</dd>
            <dt>Audience</dt>
            <dd class="mono">{s.audienceId ?? '—'}</dd>
            <dt>Started</dt>
            <dd>{formatTime(s.startTime)}</dd>
            <dt>Finished</dt>
            <dd>{formatTime(s.finishTime)}</dd>
          </dl>
        )}
      </LoadedView>
      <h2>Recording and transcript</h2>
      <p class="placeholder">This session has no recording or transcript in this service yet.</p>
    </Page>
  );
}
