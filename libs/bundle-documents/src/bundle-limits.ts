/**
 * Ceilings that keep ingestion bounded in memory and time whatever a bundle or upload holds. The largest real spec
 * we know (a 4.2 MB payments API) and the largest multi-file one (2,907 files, 14 MB) sit well inside them.
 */
export const bundleLimits = {
  maxFileBytes: 16 * 1024 * 1024,
  maxTotalBytes: 96 * 1024 * 1024,
  maxFiles: 20_000,
  /** An archive entry that inflates more than this many times its compressed size is treated as a bomb. */
  maxCompressionRatio: 200,
  maxProblems: 50,
};
