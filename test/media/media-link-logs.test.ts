/** A signed media link is a credential: it never appears in the logs, followed, refused or not. */
import { describe, expect, it } from 'vitest';
import { seed, storeActor } from '../helpers/seed.js';
import { capturedLogger } from '../helpers/captured-logs.js';
import { startTestApp } from '../helpers/test-app.js';
import { mintToken } from '../helpers/tokens.js';

describe('media link logging', () => {
  it('logs the request with the signature redacted, whatever the answer', async () => {
    const { logger, lines } = capturedLogger();
    const t = await startTestApp({ logger });
    try {
      const s = await seed(t.runtime, { sessions: 1 });
      const sessionId = s.sessions[0]!.sessionId;
      const sha = 'b'.repeat(64);
      // Recorded without bytes: the link is handed out, its file answers 404, and both are logged.
      await t.runtime.store.videos.saveVideo(
        { sessionId, objectKey: `videos/${sessionId}/${sha}.mp4`, posterKey: null, contentSha256: sha, contentType: 'video/mp4', sizeBytes: 1, durationMs: 1000, width: 2, height: 2, hasAudio: false, regions: {} },
        storeActor,
      );
      const token = await mintToken(t, s, 'B');
      const res = await fetch(`${t.url}/api/v2/sessionResults/${sessionId}/videoDownloadUrl`, { headers: { authorization: `Bearer ${token}` } });
      const link = new URL(((await res.json()) as { videoUrl: string }).videoUrl);
      const signature = link.searchParams.get('signature')!;
      const local = `${t.url}${link.pathname}${link.search}`;
      expect((await fetch(local)).status).toBe(404);
      expect((await fetch(local.replace('signature=', 'signature=x'))).status).toBe(403);
      const logged = lines.join('\n');
      expect(logged).toContain('/media/videos/');
      expect(logged).not.toContain(signature);
    } finally {
      await t.close();
    }
  });
});
