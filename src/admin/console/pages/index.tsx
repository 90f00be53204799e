import type { ComponentChildren } from 'preact';
import type { Route } from '../router.js';
import type { AdminRole } from '../session.js';
import { Page } from '../ui.js';

export interface NavigationItem {
  /** The first path segment (`#/workspaces`). */
  path: string;
  label: string;
  /** Who sees it; the admin API refuses everyone else anyway. */
  roles: readonly AdminRole[];
  render(route: Route): ComponentChildren;
}

/** The console's sections, in navigation order. */
export const NAVIGATION: readonly NavigationItem[] = [];

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
