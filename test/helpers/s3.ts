/**
 * An S3-compatible server (s3rver) on an ephemeral port with one empty bucket, in a
 * temporary directory removed by `stop()`: the S3 media backend is tested against it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
// s3rver ships no types; the little used here is declared above.
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;

export interface TestS3 {
  /** MEDIA_URL for the bucket (path-style, on the test server's endpoint). */
  mediaUrl: string;
  endpoint: string;
  bucket: string;
  stop(): Promise<void>;
}

export async function startTestS3(bucket = 'media-test'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'results-api-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  // s3rver accepts any credentials; the SDK just needs some to sign with.
  process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    mediaUrl: `s3://${bucket}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1`,
    endpoint,
    bucket,
    stop: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
