import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routing (`#/workspaces/abc?status=completed`): the server serves one page at `/`, so
 * every console address is bookmarkable without the server knowing the console's routes, and
 * none can collide with an admin API path.
 */
export interface Route {
  /** Path segments after `#/`, e.g. ['workspaces', 'abc']. */
  segments: string[];
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = text.split('?', 2);
  return { segments: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(search) };
}

/** The console address for a path and its query (unset values left out). */
export function href(path: string, params: Record<string, string | number | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return `#${path}${text ? `?${text}` : ''}`;
}

export function navigate(path: string, params: Record<string, string | number | undefined> = {}): void {
  location.hash = href(path, params);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Replaces the address without a history entry (a used setup token must not stay in it), and re-routes. */
export function replaceAddress(url: string): void {
  history.replaceState(null, '', url);
  dispatchEvent(new HashChangeEvent('hashchange'));
}
