import type { Session } from '../store/store.js';
import { isoTime } from '../iso-time.js';
import type { SessionSummaryResultItem } from './schemas.js';

/** A session as the session list shows it (and the admin API): its summary, times in ISO 8601. */
export const sessionSummary = (s: Session): SessionSummaryResultItem => ({
  sessionId: s.sessionId,
  audienceId: s.audienceId,
  status: s.status,
  startTime: isoTime(s.startTime),
  finishTime: isoTime(s.finishTime),
});
