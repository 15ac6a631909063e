import { fromRanges, toRanges } from './trial-ranges';

describe(toRanges.name, () => {
  it('joins neighbours, keeps gaps, and ignores order and repeats', () => {
    expect(toRanges([5, 0, 1, 2, 9, 7, 8, 2])).toEqual([
      [0, 2],
      [5, 5],
      [7, 9],
    ]);
    expect(toRanges([])).toEqual([]);
  });

  it('is undone by fromRanges', () => {
    const places = [3, 4, 10, 11, 12, 40, 0];
    expect([...fromRanges(toRanges(places))].sort((a, b) => a - b)).toEqual([...places].sort((a, b) => a - b));
  });

  it('keeps 10,000 trials done in order, with a few still running, to a handful of numbers', () => {
    const done = Array.from({ length: 10_000 }, (_, i) => i).filter((i) => ![9_990, 9_995].includes(i));
    expect(toRanges(done)).toEqual([
      [0, 9_989],
      [9_991, 9_994],
      [9_996, 9_999],
    ]);
  });
});
