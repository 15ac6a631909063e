import * as path from 'node:path';

import { createDataSource, PostgresEpisodeStore, RepositoryStackSource, StackRepository } from '@libs/persistence';
import { ingestStack } from '@libs/stack-ingestion';
import { Episode, memoryBudgetOf, TwinEngine, TwinRequest } from '@libs/twin-engine';
import { builtInPacks } from '@twins/index';

/**
 * One measured process of the memory benchmark: episodes of the example company's stack one after another, each on
 * a world of its own seed (as a rollout's are), each posting to Slack, sending mail and reading its inbox, then left
 * idle. Prints one JSON line: RSS before the first episode, peak RSS, RSS every `sampleEvery` episodes, and what the
 * engine held and evicted. Arguments: database URL, budget in MB (0: none), episodes.
 */
const [databaseUrl, budgetArgument, episodesArgument] = process.argv.slice(2);
const budgetMb = Number(budgetArgument);
const episodes = Number(episodesArgument);
const writesPerEpisode = 12;
/** Ten samples over the run (every 25 episodes at the least). */
const sampleEvery = Math.max(25, Math.round(episodes / 10));

const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);

const request = (method: string, target: string, token: string, body?: unknown): TwinRequest => ({
  method,
  path: target.split('?')[0],
  query: new URLSearchParams(target.split('?')[1] ?? ''),
  search: target.split('?')[1] ?? '',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
});

const play = async (episode: Episode, index: number): Promise<void> => {
  const company = episode.twin.world.company;
  if (!company) {
    throw new Error('the stack has no company');
  }
  const slackToken = episode.tokenFor('slack', company.agent.id) ?? '';
  const mailToken = episode.tokenFor('email', company.agent.email) ?? '';
  const listed = await episode.handle('slack', request('POST', '/conversations.list', slackToken, {}), 'http://twin');
  const { channels } = (listed.text ? JSON.parse(listed.text) : listed.body) as { channels?: { id: string }[] };
  if (!channels?.length) {
    throw new Error(`conversations.list answered ${listed.status}: ${listed.text ?? JSON.stringify(listed.body)}`);
  }
  for (let i = 0; i < writesPerEpisode; i++) {
    const text = `Episode ${index}: status note ${i + 1} on the open orders, nothing needs doing yet.`;
    const answer =
      i % 2 === 0
        ? await episode.handle(
            'slack',
            request('POST', '/chat.postMessage', slackToken, { channel: channels[0].id, text }),
            'http://twin',
          )
        : await episode.handle(
            'email',
            request('POST', '/me/sendMail', mailToken, {
              message: {
                subject: `Note ${i + 1}`,
                body: { contentType: 'text', content: text },
                toRecipients: [{ emailAddress: { address: company.employees[1].email } }],
              },
            }),
            'http://twin',
          );
    if (answer.status >= 300) {
      throw new Error(`a write answered ${answer.status}: ${JSON.stringify(answer.body ?? answer.text)}`);
    }
  }
  await episode.handle('email', request('GET', '/me/mailFolders/inbox/messages?$top=10', mailToken), 'http://twin');
};

void (async () => {
  const dataSource = createDataSource(databaseUrl);
  await dataSource.initialize();
  const { model, version } = await ingestStack({
    kind: 'path',
    // From test/bench (run from source) or dist/test/bench (built).
    path: path.resolve(
      __dirname,
      ...(__dirname.split(path.sep).includes('dist') ? ['..', '..', '..'] : ['..', '..']),
      'examples',
      'acme-manufacturing',
    ),
  });
  const stacks = new StackRepository(dataSource);
  await stacks.saveVersion('bench', version, model);
  // Idle at once: episodes here are played one after another and nothing keeps one after its turn.
  const engine = new TwinEngine(new PostgresEpisodeStore(dataSource), new RepositoryStackSource(stacks), builtInPacks, {
    ...memoryBudgetOf(budgetMb),
    idleMs: 0,
  });
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  const samples: [number, number, number][] = [];
  const ids: string[] = [];
  const began = Date.now();
  for (let index = 0; index < episodes; index++) {
    const episode = await engine.createEpisode({
      tenantId: 'bench',
      stackVersion: version,
      seed: 1000 + index,
      sizes: { recordsPerResource: 5 },
    });
    ids.push(episode.id);
    await play(episode, index);
    if ((index + 1) % sampleEvery === 0) {
      // After a full collection: what is live, not what V8 has yet to collect.
      global.gc?.();
      samples.push([index + 1, mb(process.memoryUsage().rss), mb(process.memoryUsage().heapUsed)]);
    }
  }
  const ms = Date.now() - began;
  // What was evicted comes back as it was: the first episode, rebuilt, has every event it recorded.
  const first = await engine.episode('bench', ids[0]);
  const recorded = (await engine.events('bench', ids[0])).length;
  process.stdout.write(
    `${JSON.stringify({
      budgetMb,
      episodes,
      baselineMb: mb(baseline),
      peakMb: Math.round(process.resourceUsage().maxRSS / 1024),
      samples,
      held: { ...engine.residency(), bytes: mb(engine.residency().bytes) },
      evictions: engine.evictions,
      rebuiltFirst: first.state.seq === recorded,
      ms,
    })}\n`,
  );
  await dataSource.destroy();
})().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
