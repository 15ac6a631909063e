/** The first `%` sequence that does not decode (a stray `%`, `%zz`, a broken UTF-8 run), or undefined. */
export const malformedEscape = (text: string): string | undefined => {
  for (const run of text.match(/(?:%[0-9A-Fa-f]{2})+|%.{0,2}/g) ?? []) {
    try {
      decodeURIComponent(run);
    } catch {
      return run;
    }
  }
  return undefined;
};
