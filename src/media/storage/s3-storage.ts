import { createReadStream } from 'node:fs';
import { stat as statFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Clock } from '../../clock.js';
import type { MediaConfig } from '../../config.js';
import {
  assertMediaKey,
  contentDisposition,
  MediaNotFoundError,
  type ByteRange,
  type MediaObject,
  type MediaStorage,
  type SignedLinkOptions,
  type SignedMediaLink,
} from './media-storage.js';

type S3MediaConfig = Extract<MediaConfig, { kind: 's3' }>;

/** S3's smallest part is 5 MiB; 8 MiB parts keep a 2 GB upload under S3's 10,000 parts with room. */
export const PART_SIZE = 8 * 1024 * 1024;
/** Parts of a local file uploaded at once: one part each in memory, never the file. */
const FILE_PART_CONCURRENCY = 3;

const isNotFound = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Media as objects in an S3-compatible bucket (under the configured prefix), through the
 * official client; links are real presigned GET URLs. Credentials come from the AWS SDK's
 * standard chain (environment variables, shared config). Big objects go up as multipart
 * uploads, aborted when anything fails so no parts are left behind.
 */
export class S3MediaStorage implements MediaStorage {
  readonly kind = 's3';
  readonly client: S3Client;

  constructor(
    private readonly config: S3MediaConfig,
    private readonly clock: Clock,
  ) {
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      // Checksums only where S3 demands them: S3-compatible servers differ in what they accept.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // No request waits forever on a stalled store.
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 120_000 },
    });
  }

  async put(key: string, body: Readable, contentType: string): Promise<MediaObject> {
    const objectKey = this.objectKey(key);
    let uploadId: string | undefined;
    const parts: CompletedPart[] = [];
    let size = 0;
    try {
      for await (const part of partsOf(body)) {
        size += part.length;
        if (uploadId === undefined && part.length < PART_SIZE) {
          // The whole body fit in one part: a plain PUT.
          await this.client.send(new PutObjectCommand({ Bucket: this.config.bucket, Key: objectKey, Body: part, ContentType: contentType }));
          return { key, size, contentType };
        }
        uploadId ??= await this.startUpload(objectKey, contentType);
        parts.push(await this.uploadPart(objectKey, uploadId, parts.length + 1, part, part.length));
      }
      if (uploadId === undefined) {
        await this.client.send(new PutObjectCommand({ Bucket: this.config.bucket, Key: objectKey, Body: Buffer.alloc(0), ContentType: contentType }));
        return { key, size: 0, contentType };
      }
      await this.completeUpload(objectKey, uploadId, parts);
      return { key, size, contentType };
    } catch (error) {
      if (uploadId !== undefined) await this.abortUpload(objectKey, uploadId);
      throw error;
    }
  }

  async putFile(key: string, path: string, contentType: string): Promise<MediaObject> {
    const objectKey = this.objectKey(key);
    const { size } = await statFile(path);
    if (size <= PART_SIZE) {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.config.bucket, Key: objectKey, Body: createReadStream(path), ContentLength: size, ContentType: contentType }),
      );
      return { key, size, contentType };
    }
    const uploadId = await this.startUpload(objectKey, contentType);
    try {
      const count = Math.ceil(size / PART_SIZE);
      const parts: CompletedPart[] = new Array(count);
      let next = 0;
      const worker = async () => {
        while (next < count) {
          const index = next++;
          const start = index * PART_SIZE;
          const end = Math.min(size, start + PART_SIZE) - 1;
          parts[index] = await this.uploadPart(objectKey, uploadId, index + 1, createReadStream(path, { start, end }), end - start + 1);
        }
      };
      await Promise.all(Array.from({ length: Math.min(FILE_PART_CONCURRENCY, count) }, worker));
      await this.completeUpload(objectKey, uploadId, parts);
      return { key, size, contentType };
    } catch (error) {
      await this.abortUpload(objectKey, uploadId);
      throw error;
    }
  }

  async stat(key: string): Promise<MediaObject | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
      return { key, size: head.ContentLength ?? 0, contentType: head.ContentType ?? 'application/octet-stream' };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      // In Node the body is the response stream itself.
      return object.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) throw new MediaNotFoundError(key);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
  }

  async signedUrl(key: string, options: SignedLinkOptions): Promise<SignedMediaLink> {
    const signingDate = new Date(this.clock.now());
    const command = new GetObjectCommand({
      Bucket: this.config.bucket,
      Key: this.objectKey(key),
      ResponseContentDisposition: options.downloadName === undefined ? undefined : contentDisposition(options.downloadName),
    });
    const url = await getSignedUrl(this.client, command, { expiresIn: options.expiresInSeconds, signingDate });
    return { url, expiresAt: signingDate.getTime() + options.expiresInSeconds * 1000 };
  }

  close(): void {
    this.client.destroy();
  }

  private objectKey(key: string): string {
    assertMediaKey(key);
    return this.config.prefix + key;
  }

  private async startUpload(objectKey: string, contentType: string): Promise<string> {
    const created = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.config.bucket, Key: objectKey, ContentType: contentType }));
    return created.UploadId!;
  }

  private async uploadPart(objectKey: string, uploadId: string, partNumber: number, body: Buffer | Readable, length: number): Promise<CompletedPart> {
    const uploaded = await this.client.send(
      new UploadPartCommand({ Bucket: this.config.bucket, Key: objectKey, UploadId: uploadId, PartNumber: partNumber, Body: body, ContentLength: length }),
    );
    return { PartNumber: partNumber, ETag: uploaded.ETag };
  }

  private async completeUpload(objectKey: string, uploadId: string, parts: CompletedPart[]): Promise<void> {
    await this.client.send(
      new CompleteMultipartUploadCommand({ Bucket: this.config.bucket, Key: objectKey, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
    );
  }

  private async abortUpload(objectKey: string, uploadId: string): Promise<void> {
    await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.config.bucket, Key: objectKey, UploadId: uploadId })).catch(() => undefined);
  }
}

/** The stream cut into PART_SIZE buffers (the last one shorter): one part in memory at a time. */
async function* partsOf(body: Readable): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    let data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    while (length + data.length >= PART_SIZE) {
      const take = PART_SIZE - length;
      pending.push(data.subarray(0, take));
      yield Buffer.concat(pending, PART_SIZE);
      pending = [];
      length = 0;
      data = data.subarray(take);
    }
    if (data.length > 0) {
      pending.push(data);
      length += data.length;
    }
  }
  if (length > 0) yield Buffer.concat(pending, length);
}
