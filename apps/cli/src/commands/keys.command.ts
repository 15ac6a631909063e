import * as os from 'node:os';

import { Command, Option } from 'commander';

import { roles } from '@libs/access';
import type { Role } from '@libs/access';
import { silentLog, stderrLog } from '@libs/embedded-services';
import { ApiKeyRepository } from '@libs/persistence';
import { printJson, UsageError } from '@cli/cli-output';
import { withDatabase } from '@cli/database-session';
import { keyExpiry, keyExpiryHelp } from '@cli/key-expiry';

/** The operator at this shell, as the evidence trail names who made or revoked a key from the command line. */
const operator = () => ({ actor: `operator:${os.userInfo().username}`, actorKind: 'admin' as const });

const tenantOption = () =>
  new Option('--tenant <id>', 'the tenant the key belongs to (default: MIRROR_TENANT)').argParser((value: string) => {
    if (!/^[\w.-]{1,64}$/.test(value)) {
      throw new UsageError(`--tenant ${value}: letters, digits, ".", "-" and "_" only, at most 64`);
    }
    return value;
  });

/**
 * `mirror keys`: the operator's path to API keys, straight on the database (DATABASE_URL). It is how the first admin
 * key of a tenant is made; from then on the tenant's admins can use the api's /v1/keys too.
 */
export const keysCommand = (): Command => {
  const keys = new Command('keys').description('API keys of a tenant: create (shown once), list, revoke');

  keys
    .command('create')
    // As the program's own commands do: a refused option is a usage error (exit 2), not commander's exit 1.
    .exitOverride()
    .description('make an API key with one role in one tenant; the key is printed once and never stored')
    .addOption(tenantOption())
    .addOption(new Option('--role <role>', 'what the key may do').choices(roles).makeOptionMandatory())
    .option('--name <name>', 'what the key is for, as listings show it')
    .option('--expires <when>', keyExpiryHelp)
    .option('--json', 'print the key and its record as JSON')
    .action(async (options: { tenant?: string; role: Role; name?: string; expires?: string; json?: boolean }) => {
      const expiresAt = keyExpiry(options.expires);
      const name = options.name?.trim() || `${options.role} key`;
      const created = await withDatabase(options.json ? silentLog : stderrLog, ({ config, dataSource }) =>
        new ApiKeyRepository(dataSource).create(
          options.tenant ?? config.MIRROR_TENANT,
          { role: options.role, name, expiresAt },
          operator(),
        ),
      );
      const { token, ...record } = created;
      if (options.json) {
        printJson({ ...record, key: token });
        return;
      }
      process.stdout.write(`${token}\n`);
      process.stderr.write(
        `API key ${record.id}: ${record.role} of tenant ${record.tenantId}` +
          `${record.expiresAt ? `, expires ${record.expiresAt}` : ', never expires'}. Shown once: keep it now.\n`,
      );
    });

  keys
    .command('list')
    .exitOverride()
    .description("the tenant's keys (never their secrets), revoked ones included")
    .addOption(tenantOption())
    .option('--json', 'print the keys as JSON')
    .action(async (options: { tenant?: string; json?: boolean }) => {
      const listed = await withDatabase(options.json ? silentLog : stderrLog, ({ config, dataSource }) =>
        new ApiKeyRepository(dataSource).list(options.tenant ?? config.MIRROR_TENANT),
      );
      if (options.json) {
        printJson({ keys: listed });
        return;
      }
      for (const key of listed) {
        const state = key.revokedAt
          ? `revoked ${key.revokedAt}`
          : key.expiresAt
            ? `expires ${key.expiresAt}`
            : 'active';
        process.stdout.write(`${key.id}  ${key.role.padEnd(8)}  ${state}  ${key.name}\n`);
      }
    });

  keys
    .command('revoke')
    .exitOverride()
    .description('revoke a key of the tenant: it stops working at once')
    .argument('<id>', 'the key id (the 16 hex digits after mk_)')
    .addOption(tenantOption())
    .option('--json', 'print the revoked key as JSON')
    .action(async (id: string, options: { tenant?: string; json?: boolean }) => {
      const revoked = await withDatabase(options.json ? silentLog : stderrLog, ({ config, dataSource }) =>
        new ApiKeyRepository(dataSource).revoke(options.tenant ?? config.MIRROR_TENANT, id, operator()),
      );
      if (!revoked) {
        throw new UsageError(`no API key ${id.slice(0, 64)} in this tenant`);
      }
      if (options.json) {
        printJson(revoked);
        return;
      }
      process.stdout.write(`API key ${revoked.id} revoked at ${revoked.revokedAt}\n`);
    });

  return keys;
};
