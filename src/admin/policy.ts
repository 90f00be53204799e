/** How long the admin listener's credentials live, and how sign-in is throttled. */

/** A setup link works once, within a day of being printed. */
export const SETUP_LINK_TTL_MS = 24 * 60 * 60 * 1000;

/** A console session ends eight hours after sign-in (a working day), whatever happens in between. */
export const SESSION_TTL_SECONDS = 8 * 60 * 60;

/**
 * Failed sign-ins are counted per account from one address (or from one known device) and per
 * source address (whatever account), in fixed 15-minute windows (the limits:
 * ADMIN_SIGN_IN_FAILURES_ACCOUNT, default 5, and ADMIN_SIGN_IN_FAILURES_ADDRESS, default 20);
 * an account's failures from all addresses are reported at ADMIN_SIGN_IN_GUESSING_ALERT
 * (default 20), never refused: a stranger cannot lock the owner out.
 */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
