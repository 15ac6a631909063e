export type DocumentFormat = 'json' | 'yaml';

export const documentFormatOf = (file: string, text: string): DocumentFormat =>
  /\.json$/i.test(file) || (!/\.ya?ml$/i.test(file) && /^\s*[[{]/.test(text)) ? 'json' : 'yaml';
