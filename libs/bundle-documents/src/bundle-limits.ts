/**
 * Ceilings that keep ingestion bounded in memory and time whatever a bundle or upload holds. The largest real spec
 * we know (a 4.2 MB payments API) and the largest multi-file one (2,907 files, 14 MB; 157,000 nodes once bundled,
 * 22 levels deep; 23,439 references) sit well inside them.
 */
export const bundleLimits = {
  maxFileBytes: 16 * 1024 * 1024,
  maxTotalBytes: 96 * 1024 * 1024,
  maxFiles: 20_000,
  /** An archive entry that inflates more than this many times its compressed size is treated as a bomb. */
  maxCompressionRatio: 200,
  maxProblems: 50,
  /**
   * Nodes one document may hold once YAML aliases and `$ref`s are expanded: a billion-laughs file or a reference
   * fan-out is refused when it crosses this, long before it can fill memory.
   */
  maxDocumentNodes: 1_000_000,
  /** Text (keys and strings) one document may hold once aliases and references are expanded. */
  maxDocumentTextBytes: 64 * 1024 * 1024,
  /** Nesting depth of any document, so every later walk over it stays far from the call-stack limit. */
  maxDepth: 128,
  /** `$ref`s one service's spec may follow while being bundled. */
  maxReferences: 100_000,
};
