import { Command } from 'commander';

import { printJson } from '@cli/cli-output';
import { loadConfig, settingRows, settingsMarkdown } from '@libs/config';

/**
 * The settings Mirror reads, checked against this environment: what an operator runs before starting a deployment
 * (a bad value exits 2 naming the variable). Secrets are shown as set or not, never their value.
 */
export const configCommand = (): Command =>
  new Command('config')
    .description("check this environment's settings and print them (secrets masked); --markdown prints the table")
    .option('--markdown', 'print every setting, its default and meaning as a Markdown table (deploy/README.md)')
    .option('--json', 'print as JSON')
    .action((options: { markdown?: boolean; json?: boolean }) => {
      if (options.markdown) {
        process.stdout.write(`${settingsMarkdown()}\n`);
        return;
      }
      const config = loadConfig() as Record<string, unknown>;
      const rows = settingRows().map((row) => {
        const value = config[row.name];
        return {
          name: row.name,
          value: value === undefined ? undefined : row.secret ? '(set)' : JSON.stringify(value).replace(/^"|"$/g, ''),
          source: process.env[row.name] ? 'environment' : value === undefined ? 'unset' : 'default',
        };
      });
      if (options.json) {
        printJson({ settings: rows });
        return;
      }
      const width = Math.max(...rows.map((r) => r.name.length));
      for (const row of rows) {
        process.stdout.write(`${row.name.padEnd(width)}  ${row.value ?? '—'}  (${row.source})\n`);
      }
    });
