import * as fs from 'node:fs';
import * as path from 'node:path';

import * as yaml from 'js-yaml';

import { instantiate, keyedSeed, validateScenario, worldSeedOf } from '@libs/scenarios';
import { stackManifestSchema } from '@libs/stack-ingestion';
import { synthesizeCompany } from '@libs/synthetic-data';
import { slackUserId } from '@twins/slack';

/**
 * What an agent learns from the seed: nothing hidden. Seeds are small public labels, and the world's ids follow
 * from the world seed, so both are drawn under the installation's instance key. The attack this replays recovered
 * the seed from the agent's own Slack id by trying small seeds, then computed the supplier's reservation price.
 */
const scenarioFile = path.join(
  __dirname,
  '../../../examples/acme-manufacturing/scenarios/single-supplier-negotiation.yaml',
);
const declared = stackManifestSchema.parse(
  yaml.load(fs.readFileSync(path.join(scenarioFile, '..', '..', 'mirror.yaml'), 'utf8')),
).company;
const { scenario } = validateScenario(yaml.load(fs.readFileSync(scenarioFile, 'utf8')), {
  services: ['email', 'slack', 'erp'],
  files: new Set(['policies/procurement-policy.md', 'policies/procurement.yaml']),
  company: declared,
});
const sizes = { employees: 80, suppliers: 12, items: 400 };
const key = 'an-installation-key-0123456789abcdef';

describe('a seed reveals nothing hidden', () => {
  it('draws the same task from the same key and seed, and another from another key', () => {
    const worldSeed = worldSeedOf(scenario!, 101, key);
    const company = synthesizeCompany(worldSeed, sizes, declared);
    expect(instantiate(scenario!, 101, company, key)).toEqual(instantiate(scenario!, 101, company, key));
    const others = ['another-key-0123456789abcdef', 'a-third-key-0123456789abcdef'].map((other) =>
      JSON.stringify(instantiate(scenario!, 101, company, other).values),
    );
    expect(new Set([JSON.stringify(instantiate(scenario!, 101, company, key).values), ...others]).size).toBe(3);
  });

  it('gives the agent ids from which no small seed can be recovered, and the world seed computes nothing hidden', () => {
    const seed = 101;
    const worldSeed = worldSeedOf(scenario!, seed, key);
    const company = synthesizeCompany(worldSeed, sizes, declared);
    const seen = slackUserId(worldSeed, company.agent);
    // The attack: try every small seed for the one whose world gives the agent this Slack id.
    const recovered = Array.from({ length: 50_000 }, (_, s) => s).filter((s) => slackUserId(s, company.agent) === seen);
    expect(recovered).toEqual([]);
    // Even an attacker who found the world seed itself, or the seed, cannot draw the hidden facts without the key.
    const truth = instantiate(scenario!, seed, company, key).hidden;
    for (const guess of [seed, worldSeed]) {
      expect(instantiate(scenario!, guess, company).hidden).not.toEqual(truth);
    }
    expect(keyedSeed(key, 'world', seed)).toBe(worldSeed);
  });
});
