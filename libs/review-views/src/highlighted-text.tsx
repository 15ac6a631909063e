/** Text with each excerpt a verdict quotes from it marked, where it occurs (case-insensitively). */
export const HighlightedText = ({ text, excerpts }: { text: string; excerpts: readonly string[] }) => {
  const lower = text.toLowerCase();
  const ranges: [number, number][] = [];
  for (const excerpt of excerpts) {
    const needle = excerpt.trim().toLowerCase();
    const at = needle.length > 0 ? lower.indexOf(needle) : -1;
    if (at >= 0) {
      ranges.push([at, at + needle.length]);
    }
  }
  if (ranges.length === 0) {
    return <>{text}</>;
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const parts = [];
  let cursor = 0;
  for (const [start, end] of ranges) {
    if (start < cursor) {
      continue;
    }
    parts.push(text.slice(cursor, start));
    parts.push(
      <mark key={start} className="evidence-text">
        {text.slice(start, end)}
      </mark>,
    );
    cursor = end;
  }
  parts.push(text.slice(cursor));
  return <>{parts}</>;
};
