import { getAtPointer } from '@libs/bundle-documents';

export interface Dereferenced {
  value: unknown;
  pointer: string;
}

/** Follows `#/...` references inside one bundled document, stopping at cycles, to reach the object they name. */
export const dereference = (document: unknown, value: unknown, pointer: string): Dereferenced => {
  let current: Dereferenced = { value, pointer };
  for (let hops = 0; hops < 32; hops++) {
    const reference = (current.value as { $ref?: unknown } | null)?.$ref;
    if (typeof reference !== 'string' || !reference.startsWith('#')) {
      return current;
    }
    const target = decodeURIComponent(reference.slice(1));
    current = { value: getAtPointer(document, target), pointer: target };
  }
  return current;
};

export const asRecord = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
