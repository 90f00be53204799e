import { apiErrors } from '../errors.js';

/** The page a listing of the family is asked for: from its start, or after or before a cursor it issued. */
export type PageFrom = { direction: 'after' | 'before'; cursor: string } | undefined;

/** `after` or `before`, never both (a 400 naming them). */
export function pageFrom(query: { after?: string | undefined; before?: string | undefined }): PageFrom {
  const { after, before } = query;
  if (after !== undefined && before !== undefined) throw apiErrors.invalidParameter('Use either after or before, not both.');
  if (after !== undefined) return { direction: 'after', cursor: after };
  return before === undefined ? undefined : { direction: 'before', cursor: before };
}
