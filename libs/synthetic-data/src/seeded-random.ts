/** A stable 32-bit hash of any strings, so a record's seed depends only on what it is, not on generation order. */
export const hashSeed = (...parts: (string | number)[]): number => {
  let hash = 2166136261;
  for (const part of parts) {
    const text = String(part);
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 16777619);
    }
    hash ^= 0x2f;
    hash = Math.imul(hash, 16777619);
  }
  return hash >>> 0;
};

/** mulberry32: small, fast and good enough for test data; the same seed gives the same sequence everywhere. */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** A version-4-shaped UUID from a seed: stable ids for records and default episodes. */
export const seededUuid = (seed: number): string => {
  const random = seededRandom(seed);
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
