export const percent = (value: number | null | undefined): string =>
  value === null || value === undefined ? '–' : `${(value * 100).toFixed(value === 1 || value === 0 ? 0 : 1)} %`;

export const decimal = (value: number | null | undefined, digits = 3): string =>
  value === null || value === undefined ? '–' : value.toFixed(digits);

/** An instant as a reviewer reads it, in UTC so every reader of a report sees the same time. */
export const instant = (iso: string | null | undefined): string =>
  iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '–';

export const shortId = (id: string) => id.slice(0, 8);

/** JSON for a cell: short values inline, long ones cut (the full record is in the evidence bundle). */
export const jsonText = (value: unknown, max = 300): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? '' : text.length > max ? `${text.slice(0, max)}…` : text;
};
