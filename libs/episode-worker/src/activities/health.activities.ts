import * as os from 'node:os';

export const createHealthActivities = () => ({
  echoFromWorker: (nonce: string): Promise<{ nonce: string; workerIdentity: string }> =>
    Promise.resolve({ nonce, workerIdentity: `${os.hostname()}:${process.pid}` }),
});

export type HealthActivities = ReturnType<typeof createHealthActivities>;
