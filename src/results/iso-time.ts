/** Epoch milliseconds as UTC ISO 8601 with milliseconds, the API's one time format. */
export const isoTime = (ms: number): string => new Date(ms).toISOString();
