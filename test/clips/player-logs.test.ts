/** A player link is a credential (it goes into an iframe): it never appears in the logs, followed or refused. */
import { describe, expect, it } from 'vitest';
import { seed, storeActor } from '../helpers/seed.js';
import { capturedLogger } from '../helpers/captured-logs.js';
import { startTestApp } from '../helpers/test-app.js';
import { mintToken } from '../helpers/tokens.js';

describe('player link logging', () => {
  it('logs the request with the signature redacted, whatever the answer', async () => {
    const { logger, lines } = capturedLogger();
    const t = await startTestApp({ logger });
    try {
      const s = await seed(t.runtime, { sessions: 1 });
      const sessionId = s.sessions[0]!.sessionId;
      // Recorded without bytes: the clip stays GENERATING and its page says so.
      await t.runtime.store.videos.saveVideo(
        { sessionId, objectKey: `videos/${sessionId}/v.mp4`, posterKey: null, contentSha256: 'c'.repeat(64), contentType: 'video/mp4', sizeBytes: 1, durationMs: 5000, width: 2, height: 2, hasAudio: false, regions: {} },
        storeActor,
      );
      const clip = await t.runtime.store.clips.createClip({ sessionId, startMs: 0, endMs: 1000, name: 'Logged' }, storeActor);
      const token = await mintToken(t, s, 'B');
      const res = await fetch(`${t.url}/usertesting/api/v1/clip/${clip.id}`, { headers: { authorization: `Bearer ${token}` } });
      const link = new URL(((await res.json()) as { embeddableUrl: string }).embeddableUrl);
      const signature = link.searchParams.get('signature')!;
      const local = `${t.url}${link.pathname}${link.search}`;
      const page = await fetch(local);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('still being prepared');
      expect((await fetch(local.replace('signature=', 'signature=x'))).status).toBe(403);
      const logged = lines.join('\n');
      expect(logged).toContain('/player/clip/');
      expect(logged).not.toContain(signature);
    } finally {
      await t.close();
    }
  });
});
