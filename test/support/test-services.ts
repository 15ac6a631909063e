import { Client } from 'pg';

import { createDataSource } from '@libs/persistence';

/**
 * Real services for integration and e2e tests, started once per run by the global setup and described to test files
 * through the environment: DATABASE_URL (a server whose `mirror_template` database is migrated) and TEMPORAL_ADDRESS.
 */
export const templateDatabase = 'mirror_template';

export const databaseUrlFor = (serverUrl: string, database: string): string => {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
};

export const requireEnvironment = (name: 'MIRROR_TEST_DATABASE_SERVER' | 'TEMPORAL_ADDRESS'): string => {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run tests through \`npm test\` (or jest with the global setup)`);
  }
  return value;
};

/**
 * A fresh database per test file, copied from the migrated template: isolation for the price of a file copy, and
 * every test runs against the real migrations.
 */
export const createTestDatabase = async (): Promise<{ url: string; drop: () => Promise<void> }> => {
  const server = requireEnvironment('MIRROR_TEST_DATABASE_SERVER');
  const name = `mirror_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabase}`);
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrlFor(server, name),
    drop: async () => {
      const client = new Client({ connectionString: server });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
};

export const migrateTemplate = async (serverUrl: string): Promise<void> => {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${templateDatabase} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${templateDatabase}`);
  } finally {
    await admin.end();
  }
  const dataSource = createDataSource(databaseUrlFor(serverUrl, templateDatabase));
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
};
