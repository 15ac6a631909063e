import * as fs from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const services = globalThis.mirrorTestServices;
  await services?.temporal?.stop();
  await services?.database?.stop();
  if (services?.runCache) {
    fs.rmSync(services.runCache, { recursive: true, force: true });
  }
}
