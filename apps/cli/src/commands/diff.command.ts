import * as fs from 'node:fs';

import { Command } from 'commander';

import { silentLog } from '@libs/embedded-services';
import { diffStacks, ingestStack, StackModel } from '@libs/stack-ingestion';
import { withDatabase } from '@cli/database-session';
import { printJson, UsageError } from '@cli/cli-output';

/** A side of a diff is a bundle on disk or a stored version (its sha256 or a prefix of at least 8 characters). */
const resolveSide = async (side: string): Promise<StackModel> => {
  if (fs.existsSync(side)) {
    return (await ingestStack({ kind: 'path', path: side })).model;
  }
  if (!/^[0-9a-f]{8,64}$/.test(side)) {
    throw new UsageError(`"${side}" is neither a bundle path nor a stored version`);
  }
  const found = await withDatabase(silentLog, ({ config, stacks }) => stacks.findVersion(config.MIRROR_TENANT, side));
  if (!found) {
    throw new UsageError(`no stored version matches "${side}" (or the prefix is ambiguous)`);
  }
  return found.model;
};

export const diffCommand = (): Command =>
  new Command('diff')
    .description('list added, removed and changed services, operations, schemas and entities between two stacks')
    .argument('<a>', 'bundle path or stored version')
    .argument('<b>', 'bundle path or stored version')
    .option('--json', 'print the changes as JSON')
    .action(async (a: string, b: string, options: { json?: boolean }) => {
      const changes = diffStacks(await resolveSide(a), await resolveSide(b));
      if (options.json) {
        printJson({ changes });
        return;
      }
      if (changes.length === 0) {
        process.stdout.write('no differences\n');
      }
      const sign = { added: '+', removed: '-', changed: '~' } as const;
      for (const change of changes) {
        process.stdout.write(`${sign[change.change]} ${change.kind} ${change.name}\n`);
      }
    });
