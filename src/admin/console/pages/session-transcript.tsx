import { sessionsApi, type Transcript } from '../admin-api.js';
import { plainCues, type PlainCue } from '../../../store/cue-text.js';
import { LoadedView, formatMs, useLoad } from '../ui.js';

/**
 * The transcript as a person reads it: each cue's time, who speaks and what they say; with a
 * recording, each time moves the player there. The cues come from the admin API's transcript
 * route (its first page of stored cues, their text as the file has it), made plain by plainCues.
 */
export function TranscriptView({ testId, sessionId, onSeek }: { testId: string; sessionId: string; onSeek: ((ms: number) => void) | undefined }) {
  const transcript = useLoad<Transcript>(() => sessionsApi.transcript(testId, sessionId), [testId, sessionId]);
  return (
    <LoadedView loaded={transcript}>
      {(t) =>
        t.cues.length === 0 ? (
          <p class="empty">The transcript has no cues.</p>
        ) : (
          <>
            <CueList cues={t.cues.flatMap(plainCues)} onSeek={onSeek} />
            {t.cueCount > t.cues.length ? <p class="hint">… and {t.cueCount - t.cues.length} more cues, not shown here.</p> : null}
          </>
        )
      }
    </LoadedView>
  );
}

/** Renders plain cues ({ startMs, endMs, speaker, text }), whatever parsed them. */
export function CueList({ cues, onSeek }: { cues: readonly PlainCue[]; onSeek: ((ms: number) => void) | undefined }) {
  return (
    <ol class="transcript" aria-labelledby="transcript-heading">
      {cues.map((cue, i) => (
        <li key={i}>
          {onSeek ? (
            <button type="button" class="cue-time" onClick={() => onSeek(cue.startMs)}>
              <span class="visually-hidden">Play from </span>
              {formatMs(cue.startMs)}
            </button>
          ) : (
            <span class="cue-time">{formatMs(cue.startMs)}</span>
          )}
          <span class="hint"> – {formatMs(cue.endMs)}</span> {cue.speaker ? <strong class="speaker">{cue.speaker}:</strong> : null}{' '}
          <span class="cue-text">{cue.text}</span>
        </li>
      ))}
    </ol>
  );
}
