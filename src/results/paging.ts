import { apiErrors } from '../errors.js';
import { OFFSET_MAX, PAGE_SIZE_DEFAULT, type SessionResultsQuery } from './schemas.js';

export type Paging =
  | { form: 'offset'; limit: number; offset: number }
  | { form: 'page'; limit: number; offset: number; rowsPerPage: number; pageNumber: number };

/**
 * Resolves the two paging forms into one window. Bounds of each parameter are checked by
 * the schema; what spans parameters is checked here. With neither form given, the path's
 * own form applies (current on /api/v2, earlier on /v2).
 */
export function resolvePaging(query: SessionResultsQuery, defaultForm: Paging['form']): Paging {
  const earlier = (['limit', 'offset'] as const).filter((k) => query[k] !== undefined);
  const current = (['rowsPerPage', 'pageNumber'] as const).filter((k) => query[k] !== undefined);
  if (earlier.length > 0 && current.length > 0) {
    throw apiErrors.invalidParameter(
      `Use either limit/offset or rowsPerPage/pageNumber, not both (got ${[...earlier, ...current].join(', ')}).`,
    );
  }
  const form = current.length > 0 ? 'page' : earlier.length > 0 ? 'offset' : defaultForm;
  if (form === 'offset') return { form, limit: query.limit ?? PAGE_SIZE_DEFAULT, offset: query.offset ?? 0 };

  const rowsPerPage = query.rowsPerPage ?? PAGE_SIZE_DEFAULT;
  const pageNumber = query.pageNumber ?? 1;
  const offset = (pageNumber - 1) * rowsPerPage;
  if (offset > OFFSET_MAX) {
    throw apiErrors.invalidParameter(
      `pageNumber is out of range: (pageNumber - 1) × rowsPerPage must be at most ${OFFSET_MAX} (got ${offset}).`,
    );
  }
  return { form, limit: rowsPerPage, offset, rowsPerPage, pageNumber };
}
