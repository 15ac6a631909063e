/**
 * The chance that k trials drawn without replacement from n, c of which passed, include at least one pass (pass@k)
 * or are all passes (pass^k). Both are the unbiased estimators over the n trials actually played, computed as running
 * products so large n never overflows a binomial coefficient:
 *   pass@k = 1 − C(n−c, k) / C(n, k) = 1 − Π_{i<k} (n−c−i)/(n−i)
 *   pass^k =     C(c, k)   / C(n, k) =     Π_{i<k} (c−i)/(n−i)
 * Undefined (null) when fewer than k trials were played: the estimate would need trials that do not exist.
 */
export const passAtK = (n: number, c: number, k: number): number | null => {
  assertCounts(n, c, k);
  if (k > n) {
    return null;
  }
  let allFail = 1;
  for (let i = 0; i < k; i++) {
    allFail *= (n - c - i) / (n - i);
    if (allFail <= 0) {
      return 1;
    }
  }
  return 1 - allFail;
};

export const passHatK = (n: number, c: number, k: number): number | null => {
  assertCounts(n, c, k);
  if (k > n) {
    return null;
  }
  let allPass = 1;
  for (let i = 0; i < k; i++) {
    allPass *= (c - i) / (n - i);
    if (allPass <= 0) {
      return 0;
    }
  }
  return allPass;
};

const assertCounts = (n: number, c: number, k: number): void => {
  if (![n, c, k].every(Number.isInteger) || n < 0 || c < 0 || c > n || k < 1) {
    throw new RangeError(`pass@k needs integers 0 ≤ c ≤ n and k ≥ 1 (n ${n}, c ${c}, k ${k})`);
  }
};
