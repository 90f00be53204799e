import { useState } from 'preact/hooks';
import { reelsApi, type Clip, type HighlightReel } from '../admin-api.js';
import { ErrorMessage, Field, JobStatus, LoadedView, Notice, TableHead, formatMs, formatTime, useAction, useLoad } from '../ui.js';

/** A test's highlight reels, and a form to join chosen clips of its sessions into a new one. */
export function ReelsSection({ testId }: { testId: string }) {
  const reels = useLoad(() => reelsApi.list(testId), [testId]);
  const clips = useLoad(() => reelsApi.clipsOfTest(testId), [testId]);
  return (
    <>
      <h2 id="reels-heading">Highlight reels</h2>
      <LoadedView loaded={reels}>{(list) => <ReelTable reels={list} onRefresh={reels.reload} />}</LoadedView>
      <LoadedView loaded={clips}>{(list) => <ReelForm testId={testId} clips={list} onCreated={reels.reload} />}</LoadedView>
    </>
  );
}

/** The test's reels; a failed one can be made again (refused, with the reason, when a clip of it no longer can be cut). */
function ReelTable({ reels, onRefresh }: { reels: HighlightReel[]; onRefresh: () => void }) {
  const [retried, setRetried] = useState<HighlightReel | undefined>(undefined);
  const retry = useAction(async (reel: HighlightReel) => {
    setRetried(await reelsApi.retry(reel.reelId));
    onRefresh();
  });
  return (
    <>
      {reels.length === 0 ? (
        <p class="empty">No highlight reels of this test yet.</p>
      ) : (
        <table aria-labelledby="reels-heading">
          <TableHead columns={['Name', 'Token (Legacy v1)', 'Clips', 'Length', 'Status', 'Created']} />
          <tbody>
            {reels.map((r) => (
              <tr key={r.reelId}>
                <td>{r.name}</td>
                <td class="mono">{r.token}</td>
                <td>{r.clipIds.length}</td>
                <td>{formatMs(r.durationMs)}</td>
                <td>
                  <JobStatus status={r.status} lastError={r.lastError} what={`reel ${r.name}`} busy={retry.busy} onRetry={() => void retry.act(r)} />
                </td>
                <td>{formatTime(r.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorMessage error={retry.error} />
      {retried ? <Notice>Highlight reel “{retried.name}” is being made again.</Notice> : null}
      <button type="button" onClick={onRefresh}>
        Refresh reel statuses
      </button>
    </>
  );
}

/** Chosen clips play in the order they were ticked. */
function ReelForm({ testId, clips, onCreated }: { testId: string; clips: Clip[]; onCreated: () => void }) {
  const [chosen, setChosen] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<HighlightReel | undefined>(undefined);
  const { act, busy, error } = useAction(reelsApi.create);
  if (clips.length === 0) return <p class="hint">Clip the sessions' recordings (on a session's page) to make a highlight reel of them.</p>;
  const toggle = (id: string, on: boolean) => setChosen((now) => (on ? [...now, id] : now.filter((c) => c !== id)));
  const submit = async (e: Event) => {
    e.preventDefault();
    setCreated(undefined);
    const reel = await act(testId, { name, clipIds: chosen });
    if (reel) {
      setCreated(reel);
      setChosen([]);
      setName('');
      onCreated();
    }
  };
  return (
    <form class="stack" onSubmit={(e) => void submit(e)}>
      <fieldset>
        <legend>Clips for a new reel, in playing order</legend>
        <ul class="plain">
          {clips.map((c) => {
            const position = chosen.indexOf(c.clipUuid);
            return (
              <li key={c.clipUuid}>
                <label>
                  <input type="checkbox" checked={position >= 0} onChange={(e) => toggle(c.clipUuid, e.currentTarget.checked)} /> {c.name}{' '}
                  <span class="hint">
                    ({formatMs(c.startMs)}–{formatMs(c.endMs)} of session {c.sessionId.slice(0, 8)}, {c.status})
                  </span>
                  {position >= 0 ? <span class="hint"> · plays {position + 1}.</span> : null}
                </label>
              </li>
            );
          })}
        </ul>
      </fieldset>
      <Field label="Reel name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <button type="submit" disabled={busy || chosen.length === 0}>
        Make highlight reel
      </button>
      <ErrorMessage error={error} />
      {created ? <Notice>Highlight reel “{created.name}” of {created.clipIds.length} clips created; a running server makes it.</Notice> : null}
    </form>
  );
}
