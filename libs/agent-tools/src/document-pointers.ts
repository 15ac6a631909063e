const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The value at a JSON pointer (`/paths/~1folders/get`), undefined when nothing is there. */
export const valueAt = (document: unknown, pointer: string): unknown => {
  let current = document;
  for (const segment of pointer.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      current = current[Number(key)];
    } else if (isObject(current)) {
      current = current[key];
    } else {
      return undefined;
    }
  }
  return current;
};

/** The object at a pointer, following `$ref`s that hold it (a parameter declared under components). */
export const objectAt = (document: unknown, pointer: string): Record<string, unknown> => {
  let current = valueAt(document, pointer);
  for (let hops = 0; hops < 16 && isObject(current) && typeof current.$ref === 'string'; hops++) {
    current = current.$ref.startsWith('#') ? valueAt(document, current.$ref.slice(1)) : undefined;
  }
  return isObject(current) ? current : {};
};

/** `/a/b/schema` → `/a/b`. */
export const parentPointer = (pointer: string): string => pointer.slice(0, pointer.lastIndexOf('/'));
