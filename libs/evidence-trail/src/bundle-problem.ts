/** A place in an evidence bundle that fails a check, and why. */
export interface BundleProblem {
  /** JSON pointer into the bundle. */
  pointer: string;
  message: string;
}
