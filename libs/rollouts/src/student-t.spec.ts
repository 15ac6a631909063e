import { meanInterval, tQuantile } from './student-t';

describe('Student t', () => {
  it('gives the tabled 97.5 % quantiles', () => {
    expect(tQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(tQuantile(0.975, 2)).toBeCloseTo(4.3027, 4);
    expect(tQuantile(0.975, 9)).toBeCloseTo(2.2622, 4);
    expect(tQuantile(0.975, 30)).toBeCloseTo(2.0423, 4);
    expect(tQuantile(0.995, 5)).toBeCloseTo(4.0321, 4);
    expect(tQuantile(0.975, 1e6)).toBeCloseTo(1.96, 2);
  });

  it('builds mean ± t·s/√n, clamped to the bounds given', () => {
    // 0, 1: mean 0.5, s = √0.5, half-width 12.706 × √0.5/√2 = 6.353.
    const two = meanInterval([0, 1], 0.95)!;
    expect(two.mean).toBe(0.5);
    expect(two.high! - two.mean).toBeCloseTo(6.3531, 3);
    expect(meanInterval([0, 1], 0.95, { min: 0, max: 1 })).toMatchObject({ low: 0, high: 1 });
    // 1, 2, 3, 4, 5: mean 3, s = √2.5, half-width 2.7764 × √(2.5/5) = 1.9632.
    const five = meanInterval([1, 2, 3, 4, 5], 0.95)!;
    expect(five.low).toBeCloseTo(1.0368, 3);
    expect(five.high).toBeCloseTo(4.9632, 3);
  });

  it('has no spread to estimate from one value, and nothing from none', () => {
    expect(meanInterval([0.4], 0.95)).toEqual({ mean: 0.4, low: null, high: null, n: 1 });
    expect(meanInterval([], 0.95)).toBeNull();
    expect(meanInterval([0.6, 0.6, 0.6], 0.95)).toMatchObject({ mean: 0.6, low: 0.6, high: 0.6 });
  });
});
