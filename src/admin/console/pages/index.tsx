import type { ComponentChildren } from 'preact';
import type { Route } from '../router.js';
import type { AdminRole } from '../session.js';
import { Page } from '../ui.js';
import { AccountPage } from './account.js';
import { AdminsPage } from './admins.js';
import { AppsPage } from './apps.js';
import { AuditPage } from './audit.js';
import { ImportsPage } from './imports.js';
import { KeysPage } from './keys.js';
import { TestsPage } from './tests.js';
import { UsersPage } from './users.js';
import { WebhooksPage } from './webhooks.js';
import { WorkspacesPage } from './workspaces.js';

export interface NavigationItem {
  /** The first path segment (`#/workspaces`). */
  path: string;
  label: string;
  /** Who sees it; the admin API refuses everyone else anyway. */
  roles: readonly AdminRole[];
  render(route: Route): ComponentChildren;
}

/** The console's sections, in navigation order. */
export const NAVIGATION: readonly NavigationItem[] = [
  { path: 'workspaces', label: 'Workspaces', roles: ['operator', 'account-admin'], render: (route) => <WorkspacesPage route={route} /> },
  { path: 'users', label: 'API users', roles: ['operator', 'support'], render: (route) => <UsersPage route={route} /> },
  { path: 'apps', label: 'Apps', roles: ['operator', 'support'], render: () => <AppsPage /> },
  { path: 'webhooks', label: 'Webhooks', roles: ['operator', 'support'], render: (route) => <WebhooksPage route={route} /> },
  { path: 'tests', label: 'Tests and sessions', roles: ['operator', 'account-admin'], render: (route) => <TestsPage route={route} /> },
  { path: 'imports', label: 'Imports', roles: ['operator', 'account-admin'], render: (route) => <ImportsPage route={route} /> },
  { path: 'keys', label: 'Signing keys', roles: ['operator'], render: () => <KeysPage /> },
  { path: 'audit', label: 'Audit log', roles: ['operator'], render: (route) => <AuditPage route={route} /> },
  { path: 'admins', label: 'Admins', roles: ['operator'], render: () => <AdminsPage /> },
  { path: 'account', label: 'Your account', roles: ['operator', 'support', 'account-admin'], render: () => <AccountPage /> },
];

/** The page for `route`; an unknown or forbidden address shows "not found", the empty one the first section. */
export function pageFor(route: Route, role: AdminRole, home: string | undefined): ComponentChildren {
  const section = route.segments[0] ?? home;
  const item = NAVIGATION.find((candidate) => candidate.path === section && candidate.roles.includes(role));
  if (item) return item.render(route);
  return (
    <Page title="Page not found">
      <p>There is no console page at this address. Choose a section in the navigation.</p>
    </Page>
  );
}
