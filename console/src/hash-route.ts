import { useEffect, useState } from 'react';

export type Route =
  | { page: 'rollouts'; query: URLSearchParams }
  | { page: 'rollout'; id: string }
  | { page: 'episode'; id: string }
  | { page: 'unknown'; path: string };

/** Routes live in the fragment (`#/rollouts/<id>`), so the api serves one index.html for every page. */
export const parseRoute = (hash: string): Route => {
  const [path, search = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter((p) => p.length > 0);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'rollouts')) {
    return { page: 'rollouts', query: new URLSearchParams(search) };
  }
  if (parts.length === 2 && parts[0] === 'rollouts') {
    return { page: 'rollout', id: decodeURIComponent(parts[1]) };
  }
  if (parts.length === 2 && parts[0] === 'episodes') {
    return { page: 'episode', id: decodeURIComponent(parts[1]) };
  }
  return { page: 'unknown', path };
};

export const useRoute = (): Route => {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const changed = () => {
      setRoute(parseRoute(window.location.hash));
      window.scrollTo(0, 0);
    };
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
};

export const links = {
  rollout: (id: string) => `#/rollouts/${encodeURIComponent(id)}`,
  episode: (id: string) => `#/episodes/${encodeURIComponent(id)}`,
};
