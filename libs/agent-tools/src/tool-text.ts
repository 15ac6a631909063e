/** Descriptions past this cost every call tokens and say little more; the first part is kept. */
const maxDescriptionLength = 1024;

/** Summary and description as one trimmed text, cut at a word when long. */
export const describe = (...parts: unknown[]): string => {
  const texts = parts
    .filter((part): part is string => typeof part === 'string')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  const unique = texts.filter((text, index) => texts.indexOf(text) === index);
  const joined = unique.join('\n\n');
  if (joined.length <= maxDescriptionLength) {
    return joined;
  }
  const cut = joined.slice(0, maxDescriptionLength - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), maxDescriptionLength / 2)).trimEnd()}…`;
};
