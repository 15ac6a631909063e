import { useCallback, useEffect, useState } from 'react';

import { getJson } from './review-api';

export type Resource<T> =
  { state: 'loading' } | { state: 'failed'; message: string } | { state: 'loaded'; value: T; reload: () => void };

/**
 * A JSON resource of the api, fetched when its path changes and again on `reload` (after a write). What was fetched
 * for another path is never shown for this one: until the new answer arrives the resource is loading, so a reviewer
 * who changes a filter does not read the previous filter's rows under the new one.
 */
export const useResource = <T>(path: string): Resource<T> => {
  const [fetched, setFetched] = useState<{ path: string; resource: Resource<T> }>({
    path,
    resource: { state: 'loading' },
  });
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  useEffect(() => {
    let current = true;
    getJson<T>(path).then(
      (value) => current && setFetched({ path, resource: { state: 'loaded', value, reload } }),
      (error: unknown) =>
        current &&
        setFetched({
          path,
          resource: { state: 'failed', message: error instanceof Error ? error.message : String(error) },
        }),
    );
    return () => {
      current = false;
    };
  }, [path, generation, reload]);
  return fetched.path === path ? fetched.resource : { state: 'loading' };
};
