import { Faker, base, en, generateMersenne53Randomizer } from '@faker-js/faker';

import { hashSeed } from './seeded-random';
import { englishFaker, mersenneRandomizer } from './mersenne-randomizer';

const draws = (randomizer: { next(): number }, count: number): number[] =>
  Array.from({ length: count }, () => randomizer.next());

describe(mersenneRandomizer.name, () => {
  // Past two twists of the state (312 draws of two words each use it up), so every step of the generator is compared.
  const count = 1500;

  it.each([0, 1, 42, 5489, 2 ** 31, 2 ** 32 - 1, 2 ** 32 + 7, -1, -123456789, 0.5, 1e15, Number.MAX_SAFE_INTEGER])(
    'draws what Faker draws from the seed %p',
    (seed) => {
      const ours = mersenneRandomizer(1);
      const fakers = generateMersenne53Randomizer(2);
      ours.seed(seed);
      fakers.seed(seed);

      expect(draws(ours, count)).toEqual(draws(fakers, count));
    },
  );

  it.each([
    ['one', [1]],
    ['three', [1, 2, 3]],
    ["four (the reference implementation's own example)", [0x123, 0x234, 0x345, 0x456]],
    ['more than the state holds', Array.from({ length: 700 }, (_, i) => i * 7919)],
    ['out of 32-bit range', [-5, 2 ** 40]],
  ])('draws what Faker draws from %s seed(s)', (_, seed) => {
    const ours = mersenneRandomizer();
    const fakers = generateMersenne53Randomizer();
    ours.seed(seed);
    fakers.seed(seed);

    expect(draws(ours, count)).toEqual(draws(fakers, count));
  });

  it('draws what Faker draws when reseeded between draws, as worlds reseed per record and field', () => {
    const ours = mersenneRandomizer(7);
    const fakers = generateMersenne53Randomizer(7);
    const seeds = Array.from({ length: 200 }, (_, i) => hashSeed(i, 'record', i % 13));

    for (const seed of seeds) {
      ours.seed(seed);
      fakers.seed(seed);
      expect(draws(ours, 1 + (seed % 5))).toEqual(draws(fakers, 1 + (seed % 5)));
    }
  });

  it('gives a Faker the same values as Faker with its own generator', () => {
    const ours = englishFaker();
    const fakers = new Faker({ locale: [en, base] });
    const values = (faker: Faker) =>
      [1, 2, 3].flatMap((seed) => {
        faker.seed(seed);
        return [faker.person.fullName(), faker.internet.email(), faker.company.name(), faker.string.uuid()];
      });

    expect(values(ours)).toEqual(values(fakers));
  });
});
