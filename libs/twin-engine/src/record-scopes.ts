import type { ResourceShape } from '@libs/openapi-schemas';
import { hashSeed } from '@libs/synthetic-data';

import { EpisodeState } from './episode-state';

/**
 * A nested collection with no parent resource to hang from (`/repos/{owner}/{repo}/issues`, where no resource has the
 * item path `/repos/{owner}/{repo}`) is scoped by its collection path's parameters: the records created under one
 * owner/repo are that repository's, and only they are listed, read, changed or deleted there. A record remembers its
 * scope as its parent (`octo/hello`). The world's own records belong to scopes that no one declared, so they are
 * dealt out over them: each scope falls in one of a few buckets, by a hash of the seed and the scope, and sees the
 * world's records of that bucket. Every scope sees some, the same ones for the same seed, and never all of them.
 */
const buckets = 3;

export const scopeParameters = (shape: ResourceShape): string[] =>
  shape.resource.parent ? [] : [...shape.resource.collectionPath.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);

const asText = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';

/** The scope of a request to a scoped resource (its parameters' values, joined), or undefined when it has none. */
export const scopeOf = (shape: ResourceShape, path: Record<string, unknown>): string | undefined => {
  const names = scopeParameters(shape);
  return names.length === 0 ? undefined : names.map((name) => asText(path[name])).join('/');
};

const worldIndexes = new WeakMap<readonly string[], Map<string, number>>();

const worldIndexOf = (ids: readonly string[], id: string): number | undefined => {
  let indexes = worldIndexes.get(ids);
  if (!indexes) {
    indexes = new Map(ids.map((worldId, index) => [worldId, index]));
    worldIndexes.set(ids, indexes);
  }
  return indexes.get(id);
};

const bucketCount = (size: number): number => Math.max(1, Math.min(buckets, size));

const bucketOf = (seed: number, shape: ResourceShape, scope: string, size: number): number =>
  hashSeed(seed, shape.key, 'scope', scope) % bucketCount(size);

/** Whether a record of the episode belongs to a scope: created there, or a world record dealt to it. */
export const inScope = (
  state: EpisodeState,
  shape: ResourceShape,
  seed: number,
  scope: string,
  id: string,
): boolean => {
  const worldIds = state.table(shape.key)?.ids ?? [];
  const index = worldIndexOf(worldIds, id);
  if (index === undefined) {
    return state.parentOf(shape.key, id) === scope;
  }
  return index % bucketCount(worldIds.length) === bucketOf(seed, shape, scope, worldIds.length);
};

/** A scope's records in list order: its share of the world's, then those created under it. */
export const scopedIds = (state: EpisodeState, shape: ResourceShape, seed: number, scope: string): string[] => {
  const worldIds = state.table(shape.key)?.ids ?? [];
  const bucket = bucketOf(seed, shape, scope, worldIds.length);
  const count = bucketCount(worldIds.length);
  const world = worldIds.filter((id, index) => index % count === bucket && state.get(shape.key, id) !== undefined);
  return [...world, ...state.ids(shape.key, scope)];
};
