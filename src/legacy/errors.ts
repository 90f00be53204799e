import { STATUS_CODES } from 'node:http';
import type { ApiProblem } from '../errors.js';
import type { ErrorFamily } from '../http/error-handler.js';

/** The Legacy (v1) family: `/usertesting/api/v1/...` and the same paths without the prefix. */
export const isLegacyPath = (url: string): boolean => /^\/(usertesting\/api\/)?v1(\/|\?|$)/.test(url);

/** e.g. 404 → NOT_FOUND: the family's code is derived from the status. */
export const legacyErrorCode = (status: number): string =>
  (STATUS_CODES[status] ?? 'Error').toUpperCase().replace(/[^A-Z0-9]+/g, '_');

/** The family's error body, in place of problem details (the same status, challenge and Retry-After). */
export const legacyErrorBody = (err: ApiProblem) => ({ errorCode: legacyErrorCode(err.status), errorMessage: err.detail });

export const LEGACY_ERROR_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Registered by the app, so every refusal on a Legacy path (routed or not) gets the family's body. */
export const LEGACY_ERROR_FAMILY: ErrorFamily = { owns: isLegacyPath, contentType: LEGACY_ERROR_CONTENT_TYPE, body: legacyErrorBody };
