import { createHmac } from 'node:crypto';

/**
 * Seeds are small public labels (`--seed 101`): anything computed from a seed alone can be computed by anyone who
 * guesses it, and a 32-bit seed is guessed from the world's ids in a second. So a task's hidden values and the world
 * it runs in are drawn under the installation's instance key: the same (key, seed) always gives the same episode,
 * and without the key a seed — or the world seed an agent might recover from ids it sees — tells nothing hidden.
 */
export const keyedSeed = (key: string, ...parts: (string | number)[]): number =>
  createHmac('sha256', key).update(parts.join('\u0000')).digest().readUInt32BE(0);

/** The world an instance runs in: the scenario's fixed world seed, else one drawn under the key from the seed. */
export const worldSeedOf = (scenario: { world: { seed?: number } }, seed: number, key: string): number =>
  scenario.world.seed ?? keyedSeed(key, 'world', seed);
