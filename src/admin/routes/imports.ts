import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { SESSION_FILE_FORMATS, sessionFileFormat, type SessionFileFormat } from '../../imports/parse-session-file.js';
import type { OperationDeps } from '../../operations/deps.js';
import { importSessions, RefusedSessionFile } from '../../operations/imports.js';
import { AdminProblem, adminProblems } from '../problems.js';
import { adminResponses } from '../schemas.js';
import { requireTestAccess } from './access.js';

/** The largest session file the admin API takes in one upload. */
export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;

const Params = Type.Object({ testId: Type.String({ format: 'uuid' }) });
const Query = Type.Object(
  { format: Type.Optional(Type.Union(SESSION_FILE_FORMATS.map((f) => Type.Literal(f)), { description: 'Default: from the file name (.ndjson, .jsonl, .csv).' })) },
  { additionalProperties: false },
);
const Imported = Type.Object(
  { testId: Type.String({ format: 'uuid' }), inserted: Type.Integer(), updated: Type.Integer(), unchanged: Type.Integer() },
  { title: 'SessionImport' },
);

/**
 * `sessions import` by upload: a multipart/form-data body with one file part. The file is
 * spooled to a private temporary directory and imported by the same code as the CLI's (all or
 * nothing, idempotent); bad lines come back as `errors`, one per line, as the CLI prints them.
 */
export function registerImportRoutes(app: FastifyInstance, deps: OperationDeps): void {
  app.post<{ Params: Static<typeof Params>; Querystring: Static<typeof Query> }>(
    '/admin/api/tests/:testId/sessions/import',
    {
      schema: {
        tags: ['Tests'],
        summary: 'Import sessions from an uploaded NDJSON or CSV file',
        description:
          'multipart/form-data with one file part (fields sessionId, audienceId, status, startTime, finishTime). The whole file is ' +
          'checked first: any bad line means nothing is imported, and the answer lists them (400 with `errors`). Re-importing ' +
          `updates sessions by sessionId. At most ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB.`,
        consumes: ['multipart/form-data'],
        params: Params,
        querystring: Query,
        response: adminResponses({ 200: Imported }, [404, 409, 413, 415]),
      },
    },
    async (request) => {
      const testId = request.params.testId.toLowerCase();
      const { caller } = await requireTestAccess(request, deps.store, testId);
      if (!request.isMultipart()) throw new AdminProblem(415, 'unsupported-media-type', 'Send the file as multipart/form-data with one file part.');
      const part = await request.file({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 0 } });
      if (!part) throw adminProblems.invalid('the request has no file part');
      const format: SessionFileFormat | undefined = request.query.format ?? sessionFileFormat(part.filename);
      const name = part.filename || 'upload';
      if (!format) {
        part.file.resume();
        throw adminProblems.invalid(`cannot tell the format of ${name} from its name: add ?format=ndjson or ?format=csv`);
      }
      const dir = await mkdtemp(join(tmpdir(), 'results-api-upload-'));
      try {
        const path = join(dir, 'sessions');
        await pipeline(part.file, createWriteStream(path, { mode: 0o600 }));
        if (part.file.truncated) throw new AdminProblem(413, 'too-large', `The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB.`);
        const fileBytes = part.file.bytesRead;
        return await importSessions(deps.store, { testId, path, name, format, fileBytes }, caller);
      } catch (err) {
        if (err instanceof RefusedSessionFile) throw adminProblems.invalid(err.message, err.lines);
        throw err;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
}
