import { AddressInfo } from 'node:net';
import { Server } from 'node:http';

import { LogLevel, WebClient } from '@slack/web-api';

import { formatProblem, ingestStack, IngestionError } from '@libs/stack-ingestion';
import { Company } from '@libs/synthetic-data';
import { createGatewayServer, Episode, InMemoryEpisodeStore, StaticStackSource, TwinEngine } from '@libs/twin-engine';
import { writeBundle } from '@test/support/bundle-fixtures';
import { testOperatorKey } from '@test/support/operator-key';

import { slackToken } from './slack';
import { builtInPacks } from '.';

const packs = `services:
  - { name: chat, pack: slack }
  - { name: mail, pack: email }
  - { name: ledger, pack: procurement }
`;

/** A clinic network, nothing like the example: its own domain, departments, people, channels and agent. */
const clinic = `name: clinic
${packs}company:
  name: Northwind Clinics
  domain: northwind-clinics.test
  currency: GBP
  departments:
    - { name: Patient Billing, cost_centre: PB-7, budget: 90000, share: 0.5, titles: [Billing Clerk], staff_role: buyer }
    - name: Accounts
      cost_centre: ACC-1
      staff_role: finance
      head: { name: Dana Whitfield, title: Finance Lead, approval_limit: 200 }
    - { name: Nursing, cost_centre: NUR-3 }
  people:
    - { name: Sam Okafor, title: Managing Director, department: Nursing, role: executive, approval_limit: 50000 }
  channels:
    - name: refund-approvals
      purpose: Refunds over the limit wait here for Accounts
      members: { departments: [Accounts], roles: [agent] }
  agent:
    name: Billing Helper
    email: billing.helper@northwind-clinics.test
    title: Patient Billing Assistant
    department: Patient Billing
`;

const served = async (bundle: string, seed: number) => {
  const { model, version } = await ingestStack({ kind: 'path', path: writeBundle({ 'mirror.yaml': bundle }) });
  const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model), builtInPacks);
  const episode = await engine.createEpisode({
    tenantId: 'test',
    stackVersion: version,
    seed,
    sizes: { company: { employees: 30, suppliers: 3, items: 10 } },
  });
  return { engine, episode, company: episode.twin.world.company as Company };
};

/**
 * Real: ingestion of a bundle on disk, the twin engine with the three packs, one gateway over HTTP, Slack's SDK and
 * plain fetch. The point: the twins serve the company the bundle declares, not one built into the packs.
 */
describe('the client company a bundle declares', () => {
  let server: Server;
  let episode: Episode;
  let company: Company;
  let base: string;

  beforeAll(async () => {
    const built = await served(clinic, 4);
    ({ episode, company } = built);
    server = createGatewayServer(built.engine, 'test', { error: (message) => console.error(message) }, testOperatorKey);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/e/${episode.id}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const slackAs = (employeeId: string) =>
    new WebClient(slackToken(episode.credentials.for('chat'), employeeId), {
      slackApiUrl: `${base}/chat/api/`,
      logLevel: LogLevel.ERROR,
    });

  it('gives the agent the declared identity in mail, chat and the ERP', async () => {
    const mailToken = episode.agentTokenFor('mail') as string;
    const me = await fetch(`${base}/mail/v1.0/me`, { headers: { authorization: `Bearer ${mailToken}` } });
    await expect(me.json()).resolves.toMatchObject({
      mail: 'billing.helper@northwind-clinics.test',
      displayName: 'Billing Helper',
      jobTitle: 'Patient Billing Assistant',
      department: 'Patient Billing',
      companyName: 'Northwind Clinics',
    });
    await expect(slackAs(company.agent.id).auth.test()).resolves.toMatchObject({ ok: true, user: 'billing.helper' });
    const erp = await fetch(`${base}/ledger/api/v1/users?email=billing.helper%40northwind-clinics.test`, {
      headers: { authorization: `Bearer ${episode.agentTokenFor('ledger') as string}` },
    });
    await expect(erp.json()).resolves.toMatchObject({ data: [{ name: 'Billing Helper', cost_centre: 'PB-7' }] });
  });

  it('puts everyone at the declared domain, with the named people where the bundle put them', () => {
    expect(company.employees.every((e) => e.email.endsWith('@northwind-clinics.test'))).toBe(true);
    expect(company.costCentres.map((c) => c.code)).toEqual(['PB-7', 'ACC-1', 'NUR-3']);
    expect(company.employees.find((e) => e.name === 'Dana Whitfield')).toMatchObject({
      email: 'dana.whitfield@northwind-clinics.test',
      title: 'Finance Lead',
      role: 'approver',
      approvalLimit: 200,
      costCentre: 'ACC-1',
    });
    const chief = company.employees.find((e) => e.name === 'Sam Okafor');
    expect(chief).toMatchObject({ role: 'executive', department: 'Nursing' });
    // The one declared executive is the only one: no generated chief officers beside it.
    expect(company.employees.filter((e) => e.role === 'executive')).toEqual([chief]);
    expect(company.employees.filter((e) => e.role === 'buyer').every((e) => e.department === 'Patient Billing')).toBe(
      true,
    );
  });

  it("serves the declared channels with their members, and none of the example's", async () => {
    const list = await slackAs(company.agent.id).conversations.list({ types: 'public_channel,private_channel' });
    const names = list.channels?.map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining(['general', 'random', 'refund-approvals', 'patient-billing', 'accounts', 'nursing']),
    );
    expect(names?.some((name) => /procurement|finance-questions/.test(name ?? ''))).toBe(false);
    const approvals = list.channels?.find((c) => c.name === 'refund-approvals');
    expect(approvals?.purpose?.value).toBe('Refunds over the limit wait here for Accounts');
    const members = await slackAs(company.agent.id).conversations.members({ channel: approvals?.id as string });
    const expected = company.employees.filter((e) => e.department === 'Accounts' || e.role === 'agent');
    expect(members.members).toHaveLength(expected.length);
    expect(expected.map((e) => e.id)).toContain(company.agent.id);
  });

  it('generates what a bundle leaves out from the seed: the same for a seed, another for another', async () => {
    const bare = `name: bare\n${packs}`;
    const [first, again, other] = await Promise.all([served(bare, 8), served(bare, 8), served(bare, 9)]);
    expect(first.company.agent.email).toBe(again.company.agent.email);
    expect(first.company.name).toBe(again.company.name);
    expect(first.company.domain).not.toBe(other.company.domain);
    expect(first.company.agent.email.endsWith(`@${first.company.domain}`)).toBe(true);
    expect(first.company.costCentres.map((c) => c.code)).not.toEqual(other.company.costCentres.map((c) => c.code));
    for (const built of [first, other]) {
      expect(JSON.stringify(built.company)).not.toMatch(/acme|procurement-approvals|CC-\d{3}/i);
    }
  });

  it('refuses a company section whose names do not hold together, at their lines', async () => {
    const broken = `name: broken
${packs}company:
  domain: Not A Domain
  departments:
    - { name: Billing, cost_centre: B-1 }
    - { name: Care, cost_centre: B-1 }
  people:
    - { title: Nurse, department: Surgery, role: requester }
  channels:
    - { name: "#approvals" }
  agent: { email: helper@elsewhere.test, department: Billing }
`;
    const refused = await ingestStack({ kind: 'path', path: writeBundle({ 'mirror.yaml': broken }) }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(IngestionError);
    const problems = (refused as IngestionError).problems.map(formatProblem);
    expect(problems).toEqual([
      expect.stringMatching(/^mirror\.yaml:7#\/company\/domain: must be a lower-case domain/),
      expect.stringMatching(/^mirror\.yaml:14#\/company\/channels\/0\/name: must be a Slack channel name/),
    ]);

    const unlinked = broken.replace('Not A Domain', 'clinic.test').replace('"#approvals"', 'approvals');
    const second = await ingestStack({ kind: 'path', path: writeBundle({ 'mirror.yaml': unlinked }) }).then(
      () => undefined,
      (error: unknown) => error as IngestionError,
    );
    expect(second?.problems.map(formatProblem)).toEqual([
      'mirror.yaml:10#/company/departments/1/cost_centre: cost centre "B-1" is used by another department',
      'mirror.yaml:15#/company/agent/email: "helper@elsewhere.test" is not at the company\'s domain clinic.test',
      'mirror.yaml:12#/company/people/0/department: no department "Surgery"; the departments are Billing, Care',
    ]);
  });
});
