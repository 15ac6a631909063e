import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Server } from 'node:http';

import { LogLevel, WebClient } from '@slack/web-api';

import { ingestStack } from '@libs/stack-ingestion';
import { Company } from '@libs/synthetic-data';
import { createGatewayServer, Episode, InMemoryEpisodeStore, StaticStackSource, TwinEngine } from '@libs/twin-engine';
import { testOperatorKey } from '@test/support/operator-key';

import { mailToken } from './email';
import { erpToken } from './procurement';
import { slackToken } from './slack';
import { builtInPacks } from '.';

/**
 * Real: one gateway over HTTP serving a stack of the Slack, email and ERP packs, Slack's SDK and plain fetch.
 * The point: the packs draw one company, so a person is the same person everywhere.
 */
describe('one company across the twins', () => {
  let server: Server;
  let episode: Episode;
  let company: Company;
  let base: string;
  const seed = 23;

  beforeAll(async () => {
    const { model, version } = await ingestStack({ kind: 'path', path: path.join(__dirname, 'fixtures', 'workplace') });
    const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model), builtInPacks);
    episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed });
    company = episode.twin.world.company as Company;
    server = createGatewayServer(engine, 'test', { error: (message) => console.error(message) }, testOperatorKey);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/e/${episode.id}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('has the default company sizes when the stack gives none', () => {
    expect(company.employees).toHaveLength(200);
    expect(company.suppliers).toHaveLength(50);
    expect(company.items).toHaveLength(2000);
  });

  it('finds every Slack user found by email as a mailbox and an ERP user of the same person', async () => {
    const slack = new WebClient(slackToken(episode.credentials.for('slack'), company.agent.id), {
      slackApiUrl: `${base}/slack/api/`,
      logLevel: LogLevel.ERROR,
    });
    const mailAs = (address: string) => ({
      authorization: `Bearer ${mailToken(episode.credentials.for('email'), address)}`,
    });
    const members: { id?: string; real_name?: string; profile?: { email?: string; title?: string } }[] = [];
    for await (const page of slack.paginate('users.list', { limit: 50 })) {
      members.push(...((page as unknown as { members: typeof members }).members ?? []));
    }
    expect(members).toHaveLength(company.employees.length);
    for (const member of members.filter((_, index) => index % 20 === 0)) {
      const email = member.profile?.email as string;
      const found = await slack.users.lookupByEmail({ email });
      expect(found.user?.id).toBe(member.id);
      const profile = await fetch(`${base}/email/v1.0/users/${encodeURIComponent(email)}`, {
        headers: mailAs(company.agent.email),
      });
      await expect(profile.json()).resolves.toMatchObject({
        mail: email,
        displayName: member.real_name,
        jobTitle: member.profile?.title,
      });
      // Their own token opens their own mailbox.
      const me = await fetch(`${base}/email/v1.0/me`, { headers: mailAs(email) });
      await expect(me.json()).resolves.toMatchObject({ mail: email });
      // And the ERP knows them by the same address, with the role and limit the company gave them.
      const erpUsers = await fetch(`${base}/erp/api/v1/users?email=${encodeURIComponent(email)}`, {
        headers: { authorization: `Bearer ${erpToken(episode.credentials.for('erp'), company.agent.id)}` },
      });
      const employee = company.employees.find((e) => e.email === email);
      await expect(erpUsers.json()).resolves.toMatchObject({
        data: [{ email, name: member.real_name, role: employee?.role, approval_limit: employee?.approvalLimit }],
      });
    }
  });

  it('gives supplier contacts mailboxes at their own domains but no Slack user', async () => {
    const contact = company.suppliers[3].contacts[0];
    const slack = new WebClient(slackToken(episode.credentials.for('slack'), company.agent.id), {
      slackApiUrl: `${base}/slack/api/`,
      logLevel: LogLevel.ERROR,
    });
    await expect(slack.users.lookupByEmail({ email: contact.email })).rejects.toMatchObject({
      data: { error: 'users_not_found' },
    });
    const mailbox = await fetch(`${base}/email/v1.0/me`, {
      headers: { authorization: `Bearer ${mailToken(episode.credentials.for('email'), contact.email)}` },
    });
    await expect(mailbox.json()).resolves.toMatchObject({
      mail: contact.email,
      companyName: company.suppliers[3].name,
    });
    expect(contact.email.endsWith(`@${company.suppliers[3].domain}`)).toBe(true);
  });
});
