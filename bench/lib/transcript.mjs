/**
 * The transcript the `transcript` scenarios fetch: a half-hour think-aloud session, one cue
 * every five seconds (360 cues, ~40 KB), stored through the repository of the build on the
 * newest completed session of a database's first test.
 */
import { rawRequest } from './servers.mjs';

const by = { actor: 'bench' };

const stamp = (ms) => {
  const pad = (n, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
};

export function benchTranscript() {
  const cues = [];
  for (let i = 0; i < 360; i++) {
    const at = i * 5_000;
    cues.push(`${stamp(at)} --> ${stamp(at + 4_500)}\n<v Participant>Sentence ${i + 1}: I am looking for the checkout button on this page.</v>`);
  }
  return `WEBVTT\n\n${cues.join('\n\n')}\n`;
}

/** Stores the transcript; returns the id of its session. */
export async function seedTranscript(store, testId) {
  const [session] = await store.sessions.listSessions(testId, 0, 1, { status: 'COMPLETE' });
  await store.transcripts.importTranscripts(testId, [{ sessionId: session.sessionId, vtt: benchTranscript() }], by);
  return session.sessionId;
}

export const transcriptPath = (sessionId) => `/api/v2/sessionResults/${sessionId}/transcript`;

/** Proves `server` answers the seeded transcript, byte for byte, as text/vtt. */
export async function precheckTranscript(server) {
  const path = transcriptPath(server.target.transcriptSessionId);
  const res = await rawRequest(server.url + path, { headers: { authorization: `Bearer ${server.token}` } });
  const type = res.headers.find?.(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  if (res.status !== 200 || res.body.toString('utf8') !== benchTranscript()) {
    throw new Error(`${server.name}: GET ${path} answered ${res.status} ${type}, not the seeded transcript`);
  }
}
