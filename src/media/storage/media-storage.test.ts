/**
 * One suite for every media storage backend: the filesystem and S3 (against s3rver, an
 * S3-compatible server started here on an ephemeral port).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestS3, type TestS3 } from '../../../test/helpers/s3.js';
import { ManualClock, systemClock } from '../../clock.js';
import { mediaConfig } from '../../config.js';
import { ABANDONED_PARTIAL_MS, FilesystemMediaStorage } from './filesystem-storage.js';
import { MediaLinkSigner } from './media-links.js';
import { MediaNotFoundError, type MediaStorage } from './media-storage.js';
import { PART_SIZE, S3MediaStorage } from './s3-storage.js';

const dir = mkdtempSync(join(tmpdir(), 'results-api-media-'));
let s3: TestS3;
beforeAll(async () => {
  s3 = await startTestS3();
});
afterAll(async () => {
  await s3?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const readAll = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
/** A stream of `data` in uneven chunks, as a network or a file would deliver it. */
const chunked = (data: Buffer, size = 100_003) =>
  Readable.from((function* () {
    for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
  })());
const signer = () => new MediaLinkSigner(randomBytes(32), 'http://127.0.0.1:1', systemClock);

const backends: [string, () => MediaStorage][] = [
  ['filesystem', () => new FilesystemMediaStorage(join(dir, 'fs'), signer())],
  ['s3', () => new S3MediaStorage(mediaConfig({ MEDIA_URL: s3.mediaUrl }) as Extract<ReturnType<typeof mediaConfig>, { kind: 's3' }>, systemClock)],
];

describe.each(backends)('media storage: %s', (_name, make) => {
  let storage: MediaStorage;
  beforeAll(() => {
    storage = make();
  });

  it('stores a stream and reads it back whole and by range', async () => {
    const data = randomBytes(300_000);
    const stored = await storage.put('videos/s1/a.mp4', chunked(data), 'video/mp4');
    expect(stored).toEqual({ key: 'videos/s1/a.mp4', size: data.length, contentType: 'video/mp4' });
    expect(await storage.stat('videos/s1/a.mp4')).toEqual(stored);
    expect((await readAll(await storage.getStream('videos/s1/a.mp4'))).equals(data)).toBe(true);
    const part = await readAll(await storage.getStream('videos/s1/a.mp4', { start: 1000, end: 1999 }));
    expect(part.equals(data.subarray(1000, 2000))).toBe(true);
  });

  it('replaces an object stored under the same key', async () => {
    await storage.put('videos/s2/b.jpg', Readable.from([Buffer.from('first')]), 'image/jpeg');
    await storage.put('videos/s2/b.jpg', Readable.from([Buffer.from('second!')]), 'image/jpeg');
    expect(await storage.stat('videos/s2/b.jpg')).toMatchObject({ size: 7, contentType: 'image/jpeg' });
  });

  it('says plainly when an object is missing; deleting twice is fine', async () => {
    expect(await storage.stat('videos/none/x.mp4')).toBeNull();
    await expect(storage.getStream('videos/none/x.mp4')).rejects.toBeInstanceOf(MediaNotFoundError);
    await storage.put('videos/s3/c.mp4', Readable.from([Buffer.from('x')]), 'video/mp4');
    await storage.delete('videos/s3/c.mp4');
    await storage.delete('videos/s3/c.mp4');
    expect(await storage.stat('videos/s3/c.mp4')).toBeNull();
  });

  it('a failed upload leaves nothing behind, not even a part', async () => {
    const failing = Readable.from(
      (async function* () {
        yield randomBytes(PART_SIZE + 10);
        throw new Error('source broke');
      })(),
    );
    await expect(storage.put('videos/s4/broken.mp4', failing, 'video/mp4')).rejects.toThrow('source broke');
    expect(await storage.stat('videos/s4/broken.mp4')).toBeNull();
  });

  it('uploads a big stream and a big file in parts, byte for byte', async () => {
    const data = randomBytes(2 * PART_SIZE + 12_345);
    await storage.put('videos/s5/stream.mp4', chunked(data, 1 << 20), 'video/mp4');
    expect(sha(await readAll(await storage.getStream('videos/s5/stream.mp4')))).toBe(sha(data));
    const file = join(dir, 'big.bin');
    writeFileSync(file, data);
    expect(await storage.putFile('videos/s5/file.mp4', file, 'video/mp4')).toEqual({ key: 'videos/s5/file.mp4', size: data.length, contentType: 'video/mp4' });
    expect(sha(await readAll(await storage.getStream('videos/s5/file.mp4')))).toBe(sha(data));
  }, 60_000);

  it('refuses keys that could leave the media directory or name nothing', async () => {
    for (const key of ['../etc/passwd', 'videos/../../x', '/abs.mp4', 'a//b', 'videos/./x', '', 'a\\b', 'ä.mp4']) {
      await expect(storage.put(key, Readable.from([Buffer.from('x')]), 'video/mp4'), key).rejects.toThrow(/invalid media key/);
      await expect(storage.stat(key), key).rejects.toThrow(/invalid media key/);
    }
  });
});

describe('filesystem storage', () => {
  it('never leaves a partial file where readers look', async () => {
    const storage = new FilesystemMediaStorage(join(dir, 'partial'), signer());
    const failing = Readable.from(
      (async function* () {
        yield Buffer.from('some bytes');
        throw new Error('source broke');
      })(),
    );
    await expect(storage.put('v/x.mp4', failing, 'video/mp4')).rejects.toThrow('source broke');
    expect(readdirSync(join(dir, 'partial', 'v'))).toEqual([]);
    expect(readdirSync(join(dir, 'partial', '.partial'))).toEqual([]);
  });

  it('destroys the body when its partial file cannot be opened', async () => {
    const root = join(dir, 'unopenable');
    const storage = new FilesystemMediaStorage(root, signer());
    await storage.put('v/first.mp4', Readable.from([Buffer.from('x')]), 'video/mp4');
    // .partial/ replaced by a file: every open in it fails (ENOTDIR), whoever runs the test.
    rmSync(join(root, '.partial'), { recursive: true });
    writeFileSync(join(root, '.partial'), '');
    const body = new Readable({ read() {} });
    await expect(storage.put('v/second.mp4', body, 'video/mp4')).rejects.toThrow(/ENOTDIR/);
    expect(body.destroyed).toBe(true);
  });

  it('writes in .partial/ and renames into place: the key\'s directory holds only whole objects', async () => {
    const storage = new FilesystemMediaStorage(join(dir, 'in-flight'), signer());
    await storage.put('v/first.mp4', Readable.from([Buffer.from('whole')]), 'video/mp4');
    const body = new Readable({ read() {} });
    const writing = storage.put('v/second.mp4', body, 'video/mp4');
    body.push(Buffer.from('half'));
    await vi.waitFor(() => expect(readdirSync(join(dir, 'in-flight', '.partial'))).toHaveLength(1), { timeout: 10_000 });
    expect(readdirSync(join(dir, 'in-flight', 'v'))).toEqual(['first.mp4']);
    body.push(null);
    await writing;
    expect(readdirSync(join(dir, 'in-flight', 'v')).sort()).toEqual(['first.mp4', 'second.mp4']);
    expect(readdirSync(join(dir, 'in-flight', '.partial'))).toEqual([]);
  });

  it('removes what a killed writer left in .partial/ at the next write, and keeps a write in progress', async () => {
    const root = join(dir, 'abandoned');
    mkdirSync(join(root, '.partial'), { recursive: true });
    const abandoned = join(root, '.partial', 'killed.partial');
    const inProgress = join(root, '.partial', 'another-process.partial');
    writeFileSync(abandoned, 'half a video');
    writeFileSync(inProgress, 'a quarter');
    const longAgo = (Date.now() - ABANDONED_PARTIAL_MS - 60_000) / 1000;
    utimesSync(abandoned, longAgo, longAgo);
    const storage = new FilesystemMediaStorage(root, signer());
    await storage.put('v/x.mp4', Readable.from([Buffer.from('x')]), 'video/mp4');
    expect(readdirSync(join(root, '.partial'))).toEqual(['another-process.partial']);
  });
});

describe('S3 presigned links (against s3rver)', () => {
  const config = () => mediaConfig({ MEDIA_URL: s3.mediaUrl }) as Extract<ReturnType<typeof mediaConfig>, { kind: 's3' }>;

  it('a presigned GET downloads the object, with Range, without other credentials', async () => {
    const storage = new S3MediaStorage(config(), systemClock);
    const data = randomBytes(50_000);
    await storage.put('videos/p1/v.mp4', Readable.from([data]), 'video/mp4');
    const before = Date.now();
    const link = await storage.signedUrl('videos/p1/v.mp4', { expiresInSeconds: 3600, downloadName: 'p1.mp4' });
    expect(link.url).toMatch(/X-Amz-Signature=/);
    expect(link.url).toMatch(/X-Amz-Expires=3600/);
    expect(link.expiresAt).toBeGreaterThanOrEqual(before + 3600_000);
    const res = await fetch(link.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await res.arrayBuffer()).equals(data)).toBe(true);
    const ranged = await fetch(link.url, { headers: { range: 'bytes=10-19' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(data.subarray(10, 20))).toBe(true);
  });

  // s3rver checks a V4 link's expiry but not its signature, so tampering is tested on our own
  // links only (test/media/media-links.test.ts); S3 itself refuses an edited presigned URL.
  it('refuses a presigned link after it expires', async () => {
    const clock = new ManualClock(Date.now() - 2 * 3600_000);
    const storage = new S3MediaStorage(config(), clock);
    await storage.put('videos/p2/v.mp4', Readable.from([Buffer.from('secret video')]), 'video/mp4');
    // Signed two hours ago for one hour: expired now.
    const expired = await storage.signedUrl('videos/p2/v.mp4', { expiresInSeconds: 3600 });
    expect((await fetch(expired.url)).status).toBe(403);
    clock.set(Date.now());
    const fresh = await storage.signedUrl('videos/p2/v.mp4', { expiresInSeconds: 3600 });
    expect((await fetch(fresh.url)).status).toBe(200);
  });
});

describe('MEDIA_URL', () => {
  it('defaults to a directory under ./data and reads file: forms', () => {
    expect(mediaConfig({})).toEqual({ kind: 'file', directory: './data/media' });
    expect(mediaConfig({ MEDIA_URL: 'file:/srv/media' })).toEqual({ kind: 'file', directory: '/srv/media' });
    expect(mediaConfig({ MEDIA_URL: 'file:///srv/my%20media' })).toEqual({ kind: 'file', directory: '/srv/my media' });
  });

  it('reads an s3:// URL: bucket, prefix, endpoint, region, addressing style', () => {
    expect(mediaConfig({ MEDIA_URL: 's3://my-bucket/results/videos/?region=eu-west-1' })).toEqual({
      kind: 's3', bucket: 'my-bucket', prefix: 'results/videos/', endpoint: undefined, region: 'eu-west-1', forcePathStyle: false,
    });
    expect(mediaConfig({ MEDIA_URL: 's3://media?endpoint=http://127.0.0.1:9000/' })).toEqual({
      kind: 's3', bucket: 'media', prefix: '', endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', forcePathStyle: true,
    });
    expect(mediaConfig({ MEDIA_URL: 's3://media?endpoint=https://s3.example.com&forcePathStyle=false' })).toMatchObject({ forcePathStyle: false });
  });

  it('refuses what it cannot use, naming the problem', () => {
    expect(() => mediaConfig({ MEDIA_URL: 'ftp://x' })).toThrow(/MEDIA_URL must be file:<directory> or s3:/);
    expect(() => mediaConfig({ MEDIA_URL: 'file:' })).toThrow(/must name a directory/);
    expect(() => mediaConfig({ MEDIA_URL: 's3://Bad_Bucket' })).toThrow(/bucket must be/);
    expect(() => mediaConfig({ MEDIA_URL: 's3://media?regoin=x' })).toThrow(/unknown option "regoin"/);
    expect(() => mediaConfig({ MEDIA_URL: 's3://media?endpoint=localhost:9000' })).toThrow(/endpoint must be an http/);
    expect(() => mediaConfig({ MEDIA_URL: 's3://media?forcePathStyle=yes' })).toThrow(/forcePathStyle must be true or false/);
    // Credentials belong in the AWS variables, never in a URL that gets printed.
    expect(() => mediaConfig({ MEDIA_URL: 's3://key:secret@media' })).toThrow(/must not carry credentials/);
  });
});
