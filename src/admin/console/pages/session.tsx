import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { sessionsApi, type Clip, type SessionOverview, type SessionTask, type SessionTaskGroup, type Transcript } from '../admin-api.js';
import { href } from '../router.js';
import { ErrorMessage, Field, LoadedView, Notice, Page, formatTime, useAction, useLoad } from '../ui.js';

/** 83_500 ms → "1:23.5": how a player shows a position. */
export function formatMs(ms: number): string {
  const tenths = Math.round(ms / 100);
  const minutes = Math.floor(tenths / 600);
  const seconds = (tenths % 600) / 10;
  return `${minutes}:${seconds.toFixed(1).padStart(4, '0')}`;
}

/**
 * One session: what the test plan asked and this session answered, its recording (with a form
 * to clip it from the player's position), its clips and its transcript.
 */
export function SessionPage({ testId, sessionId }: { testId: string; sessionId: string }) {
  const overview = useLoad(() => sessionsApi.get(testId, sessionId), [testId, sessionId]);
  return (
    <Page title="Session">
      <p class="breadcrumb">
        <a href={href(`/tests/${testId}`)}>Back to the test's sessions</a>
      </p>
      <LoadedView loaded={overview}>{(o) => <SessionView testId={testId} overview={o} />}</LoadedView>
    </Page>
  );
}

function SessionView({ testId, overview }: { testId: string; overview: SessionOverview }) {
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
      <TaskTable tasks={details.tasks} />
      <h2 id="groups-heading">Task groups</h2>
      <TaskGroupTable groups={details.taskGroups} />
    </>
  );
}

/** The player (its link asked for when the page opens: it expires), the clip form and the session's clips. */
function Recording(props: { testId: string; sessionId: string; durationMs: number; player: RefObject<HTMLVideoElement | null> }) {
  const link = useLoad(() => sessionsApi.videoLink(props.testId, props.sessionId), [props.testId, props.sessionId]);
  const clips = useLoad(() => sessionsApi.clips(props.sessionId), [props.sessionId]);
  // Leaving the page: a removed <video> may keep downloading until it is garbage-collected, so
  // its source is dropped and the download ended at once.
  const { player } = props;
  useEffect(
    () => () => {
      const video = player.current;
      if (!video) return;
      video.removeAttribute('src');
      video.load();
    },
    [player],
  );
  return (
    <>
      <LoadedView loaded={link}>
        {(l) => (
          <video
            ref={props.player}
            controls
            preload="metadata"
            src={l.videoUrl}
            poster={l.posterUrl ?? undefined}
            aria-labelledby="recording-heading"
            width={640}
          />
        )}
      </LoadedView>
      <ClipForm sessionId={props.sessionId} durationMs={props.durationMs} player={props.player} onCreated={clips.reload} />
      <h3 id="clips-heading">Clips</h3>
      <LoadedView loaded={clips}>{(list) => <ClipTable clips={list} onRefresh={clips.reload} />}</LoadedView>
    </>
  );
}

/** Clips the recording from the player's position (or times typed in), in seconds to the tenth. */
function ClipForm(props: { sessionId: string; durationMs: number; player: RefObject<HTMLVideoElement | null>; onCreated: () => void }) {
  const [start, setStart] = useState('0');
  const [end, setEnd] = useState(String(Math.min(5, props.durationMs / 1000)));
  const [name, setName] = useState('');
  const [note, setNote] = useState('');
  const [created, setCreated] = useState<Clip | undefined>(undefined);
  const { act, busy, error } = useAction(sessionsApi.createClip);
  const fromPlayer = () => {
    const at = props.player.current?.currentTime ?? 0;
    setStart(at.toFixed(1));
    setEnd(Math.min(at + 5, props.durationMs / 1000).toFixed(1));
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setCreated(undefined);
    const clip = await act(props.sessionId, {
      startMs: Math.round(Number(start) * 1000),
      endMs: Math.round(Number(end) * 1000),
      name,
      ...(note.trim() ? { description: note } : {}),
    });
    if (clip) {
      setCreated(clip);
      setName('');
      setNote('');
      props.onCreated();
    }
  };
  const max = (props.durationMs / 1000).toFixed(1);
  return (
    <form class="inline" onSubmit={(e) => void submit(e)} aria-labelledby="clip-form-heading">
      <h3 id="clip-form-heading" class="visually-hidden">
        Make a clip
      </h3>
      <button type="button" class="align-end" onClick={fromPlayer}>
        Start at the player's position
      </button>
      <Field label="Start (s)" type="number" min="0" max={max} step="0.1" required value={start} onInput={(e) => setStart(e.currentTarget.value)} />
      <Field label="End (s)" type="number" min="0" max={max} step="0.1" required value={end} onInput={(e) => setEnd(e.currentTarget.value)} />
      <Field label="Clip name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <Field label="Note (optional)" maxLength={2000} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
      <button type="submit" disabled={busy}>
        Make clip
      </button>
      <ErrorMessage error={error} />
      {created ? (
        <Notice>
          Clip “{created.name}” ({formatMs(created.startMs)}–{formatMs(created.endMs)}) created; a running server cuts it.
        </Notice>
      ) : null}
    </form>
  );
}

function ClipTable({ clips, onRefresh }: { clips: Clip[]; onRefresh: () => void }) {
  return (
    <>
      {clips.length === 0 ? (
        <p class="empty">No clips of this session yet.</p>
      ) : (
        <table aria-labelledby="clips-heading">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">Status</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {clips.map((c) => (
              <tr key={c.clipUuid}>
                <td>{c.name}</td>
                <td>{formatMs(c.startMs)}</td>
                <td>{formatMs(c.endMs)}</td>
                <td>
                  {c.status}
                  {c.lastError ? <span class="hint"> ({c.lastError})</span> : null}
                </td>
                <td>{c.description ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" onClick={onRefresh}>
        Refresh clip statuses
      </button>
    </>
  );
}

/** The cues as text with their times; with a recording, each time moves the player there. */
function TranscriptView({ testId, sessionId, onSeek }: { testId: string; sessionId: string; onSeek: ((ms: number) => void) | undefined }) {
  const transcript = useLoad<Transcript>(() => sessionsApi.transcript(testId, sessionId), [testId, sessionId]);
  return (
    <LoadedView loaded={transcript}>
      {(t) =>
        t.cues.length === 0 ? (
          <p class="empty">The transcript has no cues.</p>
        ) : (
          <ol class="transcript" aria-labelledby="transcript-heading">
            {t.cues.map((cue, i) => (
              <li key={i}>
                {onSeek ? (
                  <button type="button" class="cue-time" onClick={() => onSeek(cue.startMs)}>
                    <span class="visually-hidden">Play from </span>
                    {formatMs(cue.startMs)}
                  </button>
                ) : (
                  <span class="cue-time">{formatMs(cue.startMs)}</span>
                )}
                <span class="hint"> – {formatMs(cue.endMs)}</span> <span class="cue-text">{cue.text}</span>
              </li>
            ))}
            {t.cueCount > t.cues.length && <li class="hint">… and {t.cueCount - t.cues.length} more cues, not shown here.</li>}
          </ol>
        )
      }
    </LoadedView>
  );
}

/** An answer in a line: the value a participant gave, as the v3 view shapes it. */
function answerText(task: SessionTask): string {
  const response = task.response;
  if (!response) return '—';
  if (response.skipped) return 'skipped';
  if (!response.answer) return 'answered';
  const [value] = Object.values(response.answer);
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

function TaskTable({ tasks }: { tasks: SessionTask[] }) {
  if (tasks.length === 0) return <p class="empty">The test has no plan: no tasks to show.</p>;
  return (
    <table aria-labelledby="tasks-heading">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Task</th>
          <th scope="col">Type</th>
          <th scope="col">Answer</th>
          <th scope="col">When</th>
        </tr>
      </thead>
      <tbody>
        {tasks.map((t, i) => (
          <tr key={t.uuid}>
            <td>{i + 1}</td>
            <td>{t.text}</td>
            <td>{t.type}</td>
            <td class="mono">{answerText(t)}</td>
            <td>{t.response?.startTimeMs != null ? `${formatMs(t.response.startTimeMs)}–${t.response.endTimeMs != null ? formatMs(t.response.endTimeMs) : '?'}` : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function TaskGroupTable({ groups }: { groups: SessionTaskGroup[] }) {
  if (groups.length === 0) return <p class="empty">No task groups.</p>;
  return (
    <table aria-labelledby="groups-heading">
      <thead>
        <tr>
          <th scope="col">Group</th>
          <th scope="col">Type</th>
          <th scope="col">Result</th>
        </tr>
      </thead>
      <tbody>
        {groups.map((g) => (
          <tr key={g.uuid}>
            <td class="mono">{g.uuid}</td>
            <td>{g.type}</td>
            <td>{!g.response ? '—' : 'score' in g.response ? `QXscore ${g.response.score}` : `sequence ${g.response.sequence}`}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
