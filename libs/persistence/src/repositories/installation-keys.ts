import { randomBytes } from 'node:crypto';

import { DataSource } from 'typeorm';

/**
 * The installation's key of a name: made once from the CSPRNG and stored, so every process on the database (CLI,
 * gateway, worker, api) and every later run draws the same instances from the same seeds. Concurrent first uses
 * agree: the first insert wins and everyone reads it back.
 */
export const installationKey = (dataSource: DataSource, name: string): Promise<string> =>
  installationSecret(dataSource, name, () => randomBytes(32).toString('hex'));

/** An installation secret of any form (a signing key's PEM): `make` runs once per name and installation. */
export const installationSecret = async (dataSource: DataSource, name: string, make: () => string): Promise<string> => {
  await dataSource.query(
    `INSERT INTO "installation_keys" ("name", "value") VALUES ($1, $2) ON CONFLICT ("name") DO NOTHING`,
    [name, make()],
  );
  const rows = await dataSource.query<{ value: string }[]>(
    `SELECT "value" FROM "installation_keys" WHERE "name" = $1`,
    [name],
  );
  return rows[0].value;
};

/** The key task instances and worlds are drawn under: `MIRROR_INSTANCE_KEY` when set (to reproduce elsewhere). */
export const instanceKey = (dataSource: DataSource, configured?: string): Promise<string> =>
  configured ? Promise.resolve(configured) : installationKey(dataSource, 'instance');
