import { useRef } from 'preact/hooks';
import { sessionsApi, testsApi, type PlanTask, type SessionOverview } from '../admin-api.js';
import { href } from '../router.js';
import { LoadedView, Page, formatTime, useLoad } from '../ui.js';
import { Recording } from './session-recording.js';
import { TaskGroupTable, TaskTable } from './session-tasks.js';
import { TranscriptView } from './session-transcript.js';

/**
 * One session: what the test plan asked and this session answered, its recording (with a form
 * to clip it from the player's position), its clips and its transcript.
 */
export function SessionPage({ testId, sessionId }: { testId: string; sessionId: string }) {
  const overview = useLoad(() => sessionsApi.get(testId, sessionId), [testId, sessionId]);
  // The plan says how to read the answers (a rating's scale); without it they still show.
  const test = useLoad(() => testsApi.get(testId).catch(() => undefined), [testId]);
  return (
    <Page title="Session">
      <p class="breadcrumb">
        <a href={href(`/tests/${testId}`)}>Back to the test's sessions</a>
      </p>
      <LoadedView loaded={overview}>{(o) => <SessionView testId={testId} overview={o} plan={test.data?.plan?.tasks} />}</LoadedView>
    </Page>
  );
}

function SessionView({ testId, overview, plan }: { testId: string; overview: SessionOverview; plan: PlanTask[] | undefined }) {
  const { session, details } = overview;
  const player = useRef<HTMLVideoElement>(null);
  const seek = (ms: number) => {
    const video = player.current;
    if (!video) return;
    video.currentTime = ms / 1000;
    video.focus();
  };
  return (
    <>
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
        <dt>Participant</dt>
        <dd class="mono">{details.sessionParticipant?.participantId ?? '—'}</dd>
      </dl>

      <h2 id="recording-heading">Recording</h2>
      {overview.video ? (
        <Recording testId={testId} sessionId={session.sessionId} durationMs={overview.video.durationMs} player={player} />
      ) : (
        <p class="empty">No video was imported for this session.</p>
      )}

      <h2 id="transcript-heading">Transcript</h2>
      {overview.hasTranscript ? <TranscriptView testId={testId} sessionId={session.sessionId} onSeek={overview.video ? seek : undefined} /> : <p class="empty">No transcript was imported for this session.</p>}

      <h2 id="tasks-heading">Tasks</h2>
      <TaskTable tasks={details.tasks} plan={plan} />
      <h2 id="groups-heading">Task groups</h2>
      <TaskGroupTable groups={details.taskGroups} />
    </>
  );
}
