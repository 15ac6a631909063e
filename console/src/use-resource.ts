import { useCallback, useEffect, useState } from 'react';

import { getJson } from './review-api';

export type Resource<T> =
  { state: 'loading' } | { state: 'failed'; message: string } | { state: 'loaded'; value: T; reload: () => void };

/** A JSON resource of the api, fetched when its path changes and again on `reload` (after a write). */
export const useResource = <T>(path: string): Resource<T> => {
  const [resource, setResource] = useState<Resource<T>>({ state: 'loading' });
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  useEffect(() => {
    let current = true;
    getJson<T>(path).then(
      (value) => current && setResource({ state: 'loaded', value, reload }),
      (error: unknown) =>
        current && setResource({ state: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      current = false;
    };
  }, [path, generation, reload]);
  return resource;
};
