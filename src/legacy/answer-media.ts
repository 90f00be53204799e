import { VIDEO_LINK_SECONDS } from '../media/video-download-link.js';
import type { MediaStorage } from '../media/storage/media-storage.js';
import type { SessionRepository } from '../store/sessions.js';
import type { TranscriptRepository } from '../store/transcripts.js';
import type { VideoRepository } from '../store/videos.js';
import { plainCues } from '../store/cue-text.js';
import type { TranscriptCue } from '../store/webvtt.js';

/** What the media of a session give its v1 answers: its transcript's cues and a link to its video. */
export interface SessionMedia {
  /** Null when the session has no transcript (an answer then has no `transcript`). */
  cues: TranscriptCue[] | null;
  /** A signed link to the session's video (one hour, as the v2 videoDownloadUrl); null without a video. */
  videoUrl: string | null;
}

export interface AnswerMediaStore {
  sessions: Pick<SessionRepository, 'mediaOf'>;
  transcripts: Pick<TranscriptRepository, 'allCues'>;
  videos: Pick<VideoRepository, 'findVideo'>;
}

/**
 * The media of a page's sessions: which have a video or a transcript in one query, then each
 * one's cues and video link, one session after another (a page's transcripts are read whole,
 * as a client reading their answers would fetch them; one at a time keeps the memory to one).
 */
export async function sessionMediaOf(store: AnswerMediaStore, storage: MediaStorage, sessionIds: readonly string[]): Promise<Map<string, SessionMedia>> {
  const { videos, transcripts } = await store.sessions.mediaOf(sessionIds);
  const media = new Map<string, SessionMedia>();
  for (const sessionId of sessionIds) {
    const cues = transcripts.has(sessionId) ? await store.transcripts.allCues(sessionId) : null;
    const video = videos.has(sessionId) ? await store.videos.findVideo(sessionId) : null;
    const videoUrl = video ? (await storage.signedUrl(video.objectKey, { expiresInSeconds: VIDEO_LINK_SECONDS })).url : null;
    media.set(sessionId, { cues, videoUrl });
  }
  return media;
}

/** What was said while an answer was given: the plain text of every cue overlapping its window, in order. */
export function spokenBetween(cues: readonly TranscriptCue[], startMs: number, endMs: number): string {
  const said: string[] = [];
  for (const cue of cues) {
    if (cue.endMs <= startMs || cue.startMs >= endMs) continue;
    for (const part of plainCues(cue)) if (part.text) said.push(part.text);
  }
  return said.join(' ');
}

/**
 * The video link that starts playing at `startMs`: a W3C Media Fragment (`#t=<seconds>`), which
 * browsers' players honour and which leaves the link's signature untouched.
 */
export const videoAt = (videoUrl: string, startMs: number): string => `${videoUrl}#t=${Math.floor(startMs / 1000)}`;
