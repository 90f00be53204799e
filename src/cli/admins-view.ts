import { setupLinkUnavailable, type SetupLink } from '../admin/setup-links.js';
import type { Runtime } from '../runtime.js';
import type { Admin, AdminClient } from '../store/admins.js';
import { CliError } from './output.js';
import { isoTime } from '../iso-time.js';

/** How the `admins` commands show admin accounts, their setup links and their API clients. */

export const adminJson = (a: Admin) => ({
  id: a.id,
  email: a.email,
  role: a.role,
  passwordSet: a.passwordSet,
  totpEnabled: a.totpEnabled,
  createdAt: isoTime(a.createdAt),
});

export const linkJson = (l: SetupLink) => ({ ...adminJson(l.admin), setupLink: l.setupLink, setupLinkExpiresAt: isoTime(l.expiresAt) });

export const linkText = (l: SetupLink) =>
  [
    `Setup link for ${l.admin.email} (${l.admin.role}), usable once until ${isoTime(l.expiresAt)}:`,
    '',
    `  ${l.setupLink}`,
    '',
    'Hand it to them through a secure channel: whoever opens it first chooses the password.',
  ].join('\n');

/** A setup link needs the admin listener's URL; without one, say what to set. */
export function requireLinks(rt: Runtime): void {
  const why = setupLinkUnavailable(rt.config);
  if (why) throw new CliError(why);
}

export const adminClientJson = (c: AdminClient) => ({
  clientId: c.clientId,
  email: c.admin.email,
  role: c.admin.role,
  status: c.revokedAt === null ? 'active' : 'revoked',
  createdAt: isoTime(c.createdAt),
  revokedAt: isoTime(c.revokedAt),
});
