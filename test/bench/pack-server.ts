import { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { ingestStack } from '@libs/stack-ingestion';
import { Company } from '@libs/synthetic-data';
import { createGatewayServer, InMemoryEpisodeStore, StaticStackSource, TwinEngine } from '@libs/twin-engine';
import { mailToken } from '@twins/email';
import { builtInPacks } from '@twins/index';
import { slackToken } from '@twins/slack';
import { testOperatorKey } from '@test/support/operator-key';

/**
 * The Slack, email and ERP packs over the default-sized company, behind the gateway, as `mirror serve` would run
 * them; prints what the load needs (port, episode, the agent's tokens, a channel). The store is in memory to keep
 * PostgreSQL out of the measured process.
 */
const main = async (): Promise<void> => {
  const seed = 1;
  const bundle = path.resolve(__dirname, '..', '..', '..', 'twins', 'fixtures', 'workplace');
  const { model, version } = await ingestStack({ kind: 'path', path: bundle });
  const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model), builtInPacks);
  const episode = await engine.createEpisode({ tenantId: 'bench', stackVersion: version, seed });
  const company = episode.twin.world.company as Company;
  const channels = episode.state.ids('slack/conversations');
  const general = channels.find((id) => episode.state.get('slack/conversations', id)?.name === 'general');
  const server = createGatewayServer(
    engine,
    'bench',
    { error: (m) => process.stderr.write(`${m}\n`) },
    testOperatorKey,
  );
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(
      `${JSON.stringify({
        port: (server.address() as AddressInfo).port,
        episode: episode.id,
        slackToken: slackToken(episode.credentials.for('slack'), company.agent.id),
        mailToken: mailToken(episode.credentials.for('email'), company.agent.email),
        agentEmail: company.agent.email,
        channel: general,
      })}\n`,
    );
  });
};

void main();
