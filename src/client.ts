/**
 * `results-api/client`, kept for scripts written before the SDK became its own package. New code
 * installs and imports `@results-api/client`, which needs no other package.
 *
 * @packageDocumentation
 */
export * from '@results-api/client';
