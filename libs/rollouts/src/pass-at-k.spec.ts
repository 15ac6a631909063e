import { passAtK, passHatK } from './pass-at-k';

const binomial = (n: number, k: number): number => {
  let result = 1;
  for (let i = 0; i < k; i++) {
    result = (result * (n - i)) / (i + 1);
  }
  return result;
};

describe('pass@k and pass^k', () => {
  it('gives the exact small cases', () => {
    // n 2, c 1: one of two trials passed.
    expect(passAtK(2, 1, 1)).toBe(0.5);
    expect(passHatK(2, 1, 1)).toBe(0.5);
    expect(passAtK(2, 1, 2)).toBe(1);
    expect(passHatK(2, 1, 2)).toBe(0);
    // n 5, c 3, k 2: C(3,2)/C(5,2) = 3/10; 1 − C(2,2)/C(5,2) = 9/10.
    expect(passHatK(5, 3, 2)).toBeCloseTo(0.3, 15);
    expect(passAtK(5, 3, 2)).toBeCloseTo(0.9, 15);
    // n 4, c 4: every draw passes; c 0: none does.
    expect(passHatK(4, 4, 3)).toBe(1);
    expect(passAtK(4, 0, 3)).toBe(0);
    expect(passHatK(4, 0, 1)).toBe(0);
  });

  it('agrees with the binomial-coefficient formulas on every n ≤ 12', () => {
    for (let n = 1; n <= 12; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) {
          expect(passAtK(n, c, k)).toBeCloseTo(1 - binomial(n - c, k) / binomial(n, k), 12);
          expect(passHatK(n, c, k)).toBeCloseTo(binomial(c, k) / binomial(n, k), 12);
        }
      }
    }
  });

  it('is pass rate at k = 1, and stays finite where the coefficients would overflow', () => {
    expect(passAtK(10, 7, 1)).toBeCloseTo(0.7, 15);
    expect(passHatK(10, 7, 1)).toBeCloseTo(0.7, 15);
    const large = passHatK(2000, 1500, 300);
    expect(large).toBeGreaterThan(0);
    expect(large).toBeLessThan(1e-30);
  });

  it('is undefined past the trials played, and refuses counts that cannot be', () => {
    expect(passAtK(2, 1, 3)).toBeNull();
    expect(passHatK(0, 0, 1)).toBeNull();
    expect(() => passAtK(2, 3, 1)).toThrow(RangeError);
    expect(() => passHatK(2, 1, 0)).toThrow(RangeError);
    expect(() => passHatK(2.5, 1, 1)).toThrow(RangeError);
  });
});
