export default async function globalTeardown(): Promise<void> {
  const services = globalThis.mirrorTestServices;
  await services?.temporal?.stop();
  await services?.database?.stop();
}
