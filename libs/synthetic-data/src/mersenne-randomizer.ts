import { base, en, Faker, Randomizer } from '@faker-js/faker';

const size = 624;
const twistAt = 397;

/** The state of MT19937 seeded with one number (Matsumoto and Nishimura's `init_genrand`). */
const initByNumber = (seed: number, state: Int32Array): void => {
  state[0] = seed;
  for (let i = 1; i < size; i++) {
    const previous = state[i - 1] ^ (state[i - 1] >>> 30);
    state[i] = Math.imul(1812433253, previous) + i;
  }
};

/** The state of MT19937 seeded with several numbers (`init_by_array`). */
const initByArray = (key: readonly number[], state: Int32Array): void => {
  initByNumber(19650218, state);
  let i = 1;
  let j = 0;
  for (let k = Math.max(size, key.length); k !== 0; k--) {
    const previous = state[i - 1] ^ (state[i - 1] >>> 30);
    state[i] = Math.trunc((state[i] ^ Math.imul(previous, 1664525)) + key[j] + j);
    i++;
    j++;
    if (i >= size) {
      state[0] = state[size - 1];
      i = 1;
    }
    if (j >= key.length) {
      j = 0;
    }
  }
  for (let k = size - 1; k !== 0; k--) {
    const previous = state[i - 1] ^ (state[i - 1] >>> 30);
    state[i] = (state[i] ^ Math.imul(previous, 1566083941)) - i;
    i++;
    if (i >= size) {
      state[0] = state[size - 1];
      i = 1;
    }
  }
  state[0] = 0x80000000;
};

const twist = (state: Int32Array): void => {
  for (let i = 0; i < size; i++) {
    const y = (state[i] & 0x80000000) | (state[(i + 1) % size] & 0x7fffffff);
    state[i] = state[(i + twistAt) % size] ^ (y >>> 1) ^ (-(y & 1) & 0x9908b0df);
  }
};

/**
 * Faker's own generator (MT19937, 53-bit doubles), drawing the same numbers from the same seeds, but kept in a typed
 * array: Faker's builds a 624-entry array of boxed numbers on every `seed()`, and worlds seed once per record and
 * field (about a fifth of the CPU of building a world went there). Every state entry is read only through 32-bit
 * operations, so holding it as a 32-bit integer changes no draw.
 */
export const mersenneRandomizer = (seed: number = Math.ceil(Math.random() * Number.MAX_SAFE_INTEGER)): Randomizer => {
  const state = new Int32Array(size);
  let index = 0;
  const reseed = (value: number | number[]): void => {
    if (typeof value === 'number') {
      initByNumber(value, state);
    } else {
      initByArray(value, state);
    }
    twist(state);
    index = 0;
  };
  const nextU32 = (): number => {
    let y = state[index];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    if (++index >= size) {
      twist(state);
      index = 0;
    }
    return y >>> 0;
  };
  reseed(seed);
  return {
    next: () => ((nextU32() >>> 5) * 67108864 + (nextU32() >>> 6)) * (1 / 9007199254740992),
    seed: reseed,
  };
};

/** An English Faker on `mersenneRandomizer`: what every generator of synthetic values draws from. */
export const englishFaker = (): Faker => new Faker({ locale: [en, base], randomizer: mersenneRandomizer() });
