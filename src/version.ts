import { readFileSync } from 'node:fs';

/** The version npm installed (package.json sits one folder above dist/ and src/). */
export const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
