/**
 * Student's t interval for a mean: mean ± t(1 − α/2, n − 1) · s / √n, with s the sample standard deviation. Chosen
 * over a bootstrap because rollouts are small (a handful of trials per task), where a percentile bootstrap is
 * too narrow and the t interval is the textbook answer; it needs no seed and gives the same numbers everywhere.
 */
export interface MeanInterval {
  mean: number;
  /** null below two values: one value has no spread to estimate. */
  low: number | null;
  high: number | null;
  n: number;
}

export const meanInterval = (
  values: readonly number[],
  confidence: number,
  bounds: { min: number; max: number } = { min: -Infinity, max: Infinity },
): MeanInterval | null => {
  const n = values.length;
  if (n === 0) {
    return null;
  }
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < 2) {
    return { mean, low: null, high: null, n };
  }
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (n - 1);
  const half = tQuantile((1 + confidence) / 2, n - 1) * Math.sqrt(variance / n);
  return { mean, low: Math.max(bounds.min, mean - half), high: Math.min(bounds.max, mean + half), n };
};

/** The p-quantile (p > 0.5) of Student's t with df degrees of freedom, by bisection on its distribution function. */
export const tQuantile = (p: number, df: number): number => {
  if (!(p > 0.5 && p < 1) || !(df > 0)) {
    throw new RangeError(`tQuantile needs 0.5 < p < 1 and df > 0 (p ${p}, df ${df})`);
  }
  let low = 0;
  let high = 1;
  while (tDistribution(high, df) < p) {
    high *= 2;
  }
  for (let i = 0; i < 200 && high - low > 1e-12 * high; i++) {
    const middle = (low + high) / 2;
    if (tDistribution(middle, df) < p) {
      low = middle;
    } else {
      high = middle;
    }
  }
  return (low + high) / 2;
};

/** P(T ≤ t) for t ≥ 0: 1 − ½ I_{df/(df+t²)}(df/2, ½). */
const tDistribution = (t: number, df: number): number => 1 - 0.5 * regularizedBeta(df / (df + t * t), df / 2, 0.5);

/** I_x(a, b) by Lentz's continued fraction (Numerical Recipes' betacf), using the symmetry where it converges faster. */
const regularizedBeta = (x: number, a: number, b: number): number => {
  if (x <= 0) {
    return 0;
  }
  if (x >= 1) {
    return 1;
  }
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b;
};

const betaFraction = (x: number, a: number, b: number): number => {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    for (const aa of [
      (m * (b - m) * x) / ((a + m2 - 1) * (a + m2)),
      (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1)),
    ]) {
      d = 1 + aa * d;
      d = 1 / (Math.abs(d) < tiny ? tiny : d);
      c = 1 + aa / c;
      c = Math.abs(c) < tiny ? tiny : c;
      h *= d * c;
    }
    if (Math.abs(d * c - 1) < 1e-15) {
      break;
    }
  }
  return h;
};

/** ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: about 15 significant digits). */
const logGamma = (x: number): number => {
  const g = 7;
  const coefficients = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) {
    return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  }
  const shifted = x - 1;
  let sum = coefficients[0];
  for (let i = 1; i < g + 2; i++) {
    sum += coefficients[i] / (shifted + i);
  }
  const t = shifted + g + 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(sum);
};
