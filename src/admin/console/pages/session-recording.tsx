import type { RefObject } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { sessionsApi, type Clip } from '../admin-api.js';
import { ErrorMessage, Field, JobStatus, LoadedView, Notice, TableHead, formatMs, useAction, useLoad } from '../ui.js';

/** The player (its link asked for when the page opens: it expires), the clip form and the session's clips. */
export function Recording(props: { testId: string; sessionId: string; durationMs: number; player: RefObject<HTMLVideoElement | null> }) {
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

/** The session's clips; a failed one can be cut again (refused, with the reason, when its range no longer can be). */
function ClipTable({ clips, onRefresh }: { clips: Clip[]; onRefresh: () => void }) {
  const [retried, setRetried] = useState<Clip | undefined>(undefined);
  const retry = useAction(async (clip: Clip) => {
    setRetried(await sessionsApi.retryClip(clip.clipUuid));
    onRefresh();
  });
  return (
    <>
      {clips.length === 0 ? (
        <p class="empty">No clips of this session yet.</p>
      ) : (
        <table aria-labelledby="clips-heading">
          <TableHead columns={['Name', 'From', 'To', 'Status', 'Note']} />
          <tbody>
            {clips.map((c) => (
              <tr key={c.clipUuid}>
                <td>{c.name}</td>
                <td>{formatMs(c.startMs)}</td>
                <td>{formatMs(c.endMs)}</td>
                <td>
                  <JobStatus status={c.status} lastError={c.lastError} what={`clip ${c.name}`} busy={retry.busy} onRetry={() => void retry.act(c)} />
                </td>
                <td>{c.description ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorMessage error={retry.error} />
      {retried ? <Notice>Clip “{retried.name}” is being cut again.</Notice> : null}
      <button type="button" onClick={onRefresh}>
        Refresh clip statuses
      </button>
    </>
  );
}
