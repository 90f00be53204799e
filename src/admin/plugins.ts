import type { AdminPlugin } from './app.js';
import { adminConsole } from './console-route.js';

/**
 * What else the admin listener serves, registered after the admin API: the web console adds
 * itself here (one import and one entry), so `serve` and the tests pick it up alike.
 */
export const ADMIN_PLUGINS: readonly AdminPlugin[] = [adminConsole];
