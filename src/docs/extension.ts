/**
 * Marks what this service adds to the real Results API contract (the public OpenAPI documents
 * in api-evangelist/usertesting, e.g. usertesting-results-v2-openapi.yml): a client generated
 * from the real document never sends or reads it; one generated from ours gets it as optional.
 * On a parameter's schema it is lifted onto the parameter (src/docs/openapi.ts).
 */
export const EXTENSION_KEY = 'x-results-api-extension';
export const EXTENSION = { [EXTENSION_KEY]: true } as const;
