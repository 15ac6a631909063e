import * as os from 'node:os';
import * as path from 'node:path';

import { z } from 'zod';

import { mirrorConfigSchema } from './mirror-config';

export interface SettingRow {
  name: string;
  /** The default as a reader should see it (the working folder as `./`, the home folder as `~`); absent = none. */
  default?: string;
  required: boolean;
  secret: boolean;
  description: string;
}

/** A default made from this machine's folders, written as anyone's. */
const portable = (value: unknown): string => {
  const text = String(value);
  const cwd = process.cwd();
  const home = os.homedir();
  if (text === cwd || text.startsWith(cwd + path.sep)) {
    return `./${path.relative(cwd, text)}`;
  }
  if (text === home || text.startsWith(home + path.sep)) {
    return `~/${path.relative(home, text)}`;
  }
  return text;
};

/** Every setting with its default and description, read from the schema itself so the table cannot drift from it. */
export const settingRows = (): SettingRow[] =>
  Object.entries(mirrorConfigSchema.shape).map(([name, field]) => {
    const schema = field as z.ZodTypeAny;
    const fallback = schema instanceof z.ZodDefault ? (schema._def.defaultValue as () => unknown)() : undefined;
    const description = schema.description ?? '';
    return {
      name,
      ...(fallback !== undefined ? { default: portable(fallback) } : {}),
      required: false,
      secret: /\(a secret\)/.test(description),
      description,
    };
  });

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The settings as a Markdown table (what deploy/README.md shows between its `settings` markers). */
export const settingsMarkdown = (rows: SettingRow[] = settingRows()): string =>
  [
    '| variable | default | meaning |',
    '| --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| \`${row.name}\` | ${row.default !== undefined ? `\`${cell(row.default)}\`` : '—'} | ${cell(row.description)} |`,
    ),
  ].join('\n');
