import { randomBase62 } from '../oauth/random.js';

/** Admin API client ids: `adm` + 17 base62 characters, never mistaken for an API user's `0oa...`. */
export const ADMIN_CLIENT_ID_PATTERN = /^adm[0-9A-Za-z]{17}$/;
export const generateAdminClientId = (): string => `adm${randomBase62(17)}`;
