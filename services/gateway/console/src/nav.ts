import { useEffect, useState } from 'preact/hooks';

/** Where the console is: `#/portfolio` (home), `#/applications?status=...`, `#/applications/<id>`, `#/webhooks`, `#/keys`, `#/policy`. */
export interface Location {
  path: string;
  params: URLSearchParams;
}

function readLocation(): Location {
  const hash = window.location.hash.replace(/^#/, '') || '/portfolio';
  const [path = '/portfolio', search = ''] = hash.split('?');
  return { path: path === '/' ? '/portfolio' : path, params: new URLSearchParams(search) };
}

/** Moves to another page of the console. */
export function navigate(path: string, params?: Record<string, string | string[] | undefined>) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params ?? {})) {
    for (const one of Array.isArray(value) ? value : value ? [value] : []) search.append(name, one);
  }
  const text = search.toString();
  window.location.hash = `#${path}${text ? `?${text}` : ''}`;
}

export function useLocation(): Location {
  const [location, setLocation] = useState(readLocation);
  useEffect(() => {
    const changed = () => setLocation(readLocation());
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return location;
}
