import { synthesizeCompany } from './company';

/** Real: the company synthesis. Mocked: nothing. */
describe('synthesizeCompany, shared', () => {
  it('gives the world and the personas of a seed one company, and the same people after it was dropped', () => {
    const sizes = { employees: 12, suppliers: 3, items: 5 };
    const first = synthesizeCompany(7, sizes);
    expect(synthesizeCompany(7, { ...sizes })).toBe(first);
    expect(synthesizeCompany(8, sizes)).not.toBe(first);
    // Sizes given or left to their defaults name one company only when they are the same sizes.
    expect(synthesizeCompany(7, {})).not.toBe(first);
    // Enough other companies that the cache drops the first: the rebuilt one is a new object with the same people.
    for (let seed = 100; seed < 200; seed++) {
      synthesizeCompany(seed, sizes);
    }
    const rebuilt = synthesizeCompany(7, sizes);
    expect(rebuilt).not.toBe(first);
    expect(rebuilt).toEqual(first);
  });
});
