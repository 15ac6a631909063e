/** RFC 6901 JSON pointers, used to name a place in a document in every error and warning. */
export const escapePointerSegment = (segment: string | number): string =>
  String(segment).replace(/~/g, '~0').replace(/\//g, '~1');

export const unescapePointerSegment = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');

export const appendPointer = (pointer: string, ...segments: (string | number)[]): string =>
  segments.reduce<string>((acc, segment) => `${acc}/${escapePointerSegment(segment)}`, pointer);

export const parsePointer = (pointer: string): string[] => {
  if (pointer === '' || pointer === '/') {
    return [];
  }
  if (!pointer.startsWith('/')) {
    throw new Error(`JSON pointer must start with "/": ${pointer}`);
  }
  return pointer.slice(1).split('/').map(unescapePointerSegment);
};

/** Follows a pointer through plain JSON values; undefined when any segment is missing. */
export const getAtPointer = (root: unknown, pointer: string): unknown => {
  let node: unknown = root;
  for (const segment of parsePointer(pointer)) {
    if (Array.isArray(node)) {
      node = /^\d+$/.test(segment) ? node[Number(segment)] : undefined;
    } else if (node !== null && typeof node === 'object') {
      node = Object.prototype.hasOwnProperty.call(node, segment)
        ? (node as Record<string, unknown>)[segment]
        : undefined;
    } else {
      return undefined;
    }
    if (node === undefined) {
      return undefined;
    }
  }
  return node;
};
