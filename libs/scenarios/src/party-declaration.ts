import type {
  DeclaredParty,
  Delay,
  Negotiation,
  NegotiationTactic,
  PartyReaction,
  ReactionAct,
  Saying,
  TwinOperation,
} from '@libs/party-reactions';
import { Employee, englishFaker, hashSeed } from '@libs/synthetic-data';
import type {
  DeclaredPartySpec,
  DelaySpec,
  EmployeeSelector,
  NegotiatorSpec,
  TwinOperationSpec,
} from '@libs/stack-model';

/** What resolving a party needs from the instance being made, each reporting problems at the pointer it is given. */
export interface PartyResolution {
  seed: number;
  horizonBusinessDays: number;
  employee: (selector: EmployeeSelector, pointer: string) => Employee;
  /** A contact of one of the company's suppliers, and the supplier it speaks for. */
  supplierContact: (
    supplier: string | number,
    contact: number,
    pointer: string,
  ) => { id: string; name: string; email: string; organisation: { id: string; name: string } };
  number: (expression: number | string, pointer: string) => number;
  fill: (text: string, pointer: string) => string;
  /** Refuses a value that does not work out for this instance, at its pointer. */
  refuse: (pointer: string, message: string) => never;
}

const delayOf = (spec: DelaySpec, at: string, resolve: PartyResolution): Delay => ({
  ...(spec.business_hours !== undefined
    ? { businessHours: resolve.number(spec.business_hours, `${at}/business_hours`) }
    : {}),
  ...(spec.business_days !== undefined
    ? { businessDays: resolve.number(spec.business_days, `${at}/business_days`) }
    : {}),
});

const operationOf = (spec: TwinOperationSpec): TwinOperation => ({
  service: spec.service,
  method: spec.method,
  path: spec.path,
  ...(spec.body !== undefined ? { body: spec.body } : {}),
});

type ActSpec = DeclaredPartySpec['reactions'][number]['do'];

const actOf = (spec: ActSpec): ReactionAct => ('say' in spec ? { say: spec.say as Saying } : { do: operationOf(spec) });

export const negotiationTactics: readonly NegotiationTactic[] = ['boulware', 'linear', 'conceder', 'tit-for-tat'];

/** A negotiator's parameters for the instance: every value an expression over the instance's values. */
const negotiationOf = (spec: NegotiatorSpec, at: string, resolve: PartyResolution): Negotiation => {
  const tactic = resolve.fill(spec.tactic, `${at}/tactic`);
  if (!(negotiationTactics as readonly string[]).includes(tactic)) {
    resolve.refuse(`${at}/tactic`, `unknown tactic "${tactic}"; use one of ${negotiationTactics.join(', ')}`);
  }
  const patience = Math.max(1, Math.round(resolve.number(spec.patience, `${at}/patience`)));
  return {
    channel: spec.channel,
    issues: Object.fromEntries(
      Object.entries(spec.issues).map(([issue, value]) => [
        issue,
        {
          says: value.says,
          ...(value.unit !== undefined ? { unit: value.unit } : {}),
          opening: resolve.number(value.opening, `${at}/issues/${issue}/opening`),
          reservation: resolve.number(value.reservation, `${at}/issues/${issue}/reservation`),
          decimals: value.decimals,
          ...(value.prefers !== undefined ? { prefers: value.prefers } : {}),
        },
      ]),
    ),
    tactic: tactic as NegotiationTactic,
    patience,
    walkAway: {
      insulting: resolve.number(spec.walk_away.insulting, `${at}/walk_away/insulting`),
      insults: resolve.number(spec.walk_away.insults, `${at}/walk_away/insults`),
      stalledAfter:
        spec.walk_away.stalled_after !== undefined
          ? resolve.number(spec.walk_away.stalled_after, `${at}/walk_away/stalled_after`)
          : patience + 2,
    },
    ...(spec.record ? { record: operationOf(spec.record) } : {}),
  };
};

/** Someone outside the company: named by the scenario, or drawn for the seed (the same person for the same seed). */
const outsider = (
  spec: { name?: string; email?: string; domain?: string },
  party: string,
  at: string,
  resolve: PartyResolution,
): { name: string; email: string } => {
  const faker = englishFaker();
  faker.seed(hashSeed(resolve.seed, 'outside-party', party));
  const first = faker.person.firstName();
  const last = faker.person.lastName();
  const name = spec.name !== undefined ? resolve.fill(spec.name, `${at}/name`) : `${first} ${last}`;
  const domain = spec.domain ?? faker.internet.domainName();
  const email =
    spec.email !== undefined
      ? resolve.fill(spec.email, `${at}/email`)
      : `${name
          .toLowerCase()
          .replace(/[^a-z]+/g, '.')
          .replace(/^\.|\.$/g, '')}@${domain}`;
  return { name, email: email.toLowerCase() };
};

/**
 * A declared party for one instance: its identity and facts filled from the instance's values, its behaviour kinds
 * turned into reactions (a requester acts at the start, a responder answers what it is asked, an approver reviews
 * amounts over its threshold, background traffic posts over the horizon), its own reactions kept as written.
 */
export const resolveDeclaredParty = (
  name: string,
  spec: DeclaredPartySpec,
  resolve: PartyResolution,
): DeclaredParty => {
  const at = (field: string) => `/parties/${name}/${field}`;
  const employee = 'employee' in spec.who ? resolve.employee(spec.who.employee, at('who/employee')) : undefined;
  const contact =
    'supplier_contact' in spec.who
      ? resolve.supplierContact(
          spec.who.supplier_contact.supplier,
          spec.who.supplier_contact.contact,
          at('who/supplier_contact'),
        )
      : undefined;
  const identity = employee
    ? { name: employee.name, email: employee.email, employeeId: employee.id }
    : contact
      ? { name: contact.name, email: contact.email, principal: contact.id, organisation: contact.organisation }
      : outsider('outside' in spec.who ? spec.who.outside : {}, name, at('who/outside'), resolve);
  const reactions: PartyReaction[] = [];
  spec.behaviour.forEach((behaviour, index) => {
    const id = `behaviour/${index}`;
    const pointer = at(id);
    if ('requester' in behaviour) {
      reactions.push({
        id,
        when: { start: true },
        after: delayOf(behaviour.requester.after, `${pointer}/requester/after`, resolve),
        act: actOf(behaviour.requester.do),
      });
    } else if ('responder' in behaviour) {
      reactions.push({
        id,
        when: { question: behaviour.responder.channel },
        after: delayOf(behaviour.responder.after, `${pointer}/responder/after`, resolve),
        act: { answer: true },
      });
    } else if ('approver' in behaviour) {
      const spec = behaviour.approver;
      const limit =
        spec.limit !== undefined
          ? resolve.number(spec.limit, `${pointer}/approver/limit`)
          : (employee?.approvalLimit ?? 0);
      // A table's records are watched through the domain event its service tells for each one created.
      const watched =
        'event' in spec.watch
          ? { event: spec.watch.event, amount: spec.watch.amount }
          : {
              event: `${spec.watch.service}.${spec.watch.table}.created`,
              amount: `event.data.record.${spec.watch.amount_field}`,
            };
      reactions.push({
        id,
        when: { event: watched.event, ...(spec.watch.where ? { where: spec.watch.where } : {}) },
        after: delayOf(spec.after, `${pointer}/approver/after`, resolve),
        act: {
          review: {
            amount: watched.amount,
            over: resolve.number(spec.over, `${pointer}/approver/over`),
            limit,
            ...(spec.say ? { say: spec.say } : {}),
            ...(spec.record ? { record: operationOf(spec.record) } : {}),
          },
        },
      });
    } else if ('negotiator' in behaviour) {
      const spec = behaviour.negotiator;
      const negotiation = negotiationOf(spec, `${pointer}/negotiator`, resolve);
      const after = delayOf(spec.after, `${pointer}/negotiator/after`, resolve);
      reactions.push({ id, when: { question: spec.channel }, after, act: { negotiate: negotiation } });
      if (spec.opens) {
        reactions.push({
          id: `${id}/opens`,
          when: { event: spec.opens.event, ...(spec.opens.where ? { where: spec.opens.where } : {}) },
          after,
          act: {
            negotiate: {
              ...negotiation,
              ...(spec.opens.record ? { record: operationOf(spec.opens.record) } : {}),
              ...(spec.opens.subject ? { openingSubject: spec.opens.subject } : {}),
            },
          },
        });
      }
      if (spec.honours) {
        const { event, where, read, terms, accept, refuse } = spec.honours;
        reactions.push({
          id: `${id}/honours`,
          when: { event, ...(where ? { where } : {}) },
          after,
          act: {
            honour: {
              negotiation,
              read: operationOf(read),
              terms,
              accept: operationOf(accept),
              refuse: operationOf(refuse),
            },
          },
        });
      }
    } else {
      const { channels, lines } = behaviour.background;
      const messages = Math.max(
        0,
        Math.round(resolve.number(behaviour.background.messages, `${pointer}/background/messages`)),
      );
      for (let i = 0; i < messages; i++) {
        reactions.push({
          id: `${id}/${i}`,
          when: { start: true },
          after: { businessDays: (resolve.horizonBusinessDays * (i + 1)) / (messages + 1) },
          act: {
            say: {
              slack: {
                channel: channels[i % channels.length],
                text: lines[hashSeed(resolve.seed, name, i) % lines.length],
                thread: false,
              },
            },
          },
        });
      }
    }
  });
  spec.reactions.forEach((reaction, index) => {
    reactions.push({
      id: `reactions/${index}`,
      when:
        'state' in reaction.when
          ? { state: reaction.when.state }
          : { event: reaction.when.event, ...(reaction.when.where ? { where: reaction.when.where } : {}) },
      after: delayOf(reaction.after, at(`reactions/${index}/after`), resolve),
      act: actOf(reaction.do),
    });
  });
  return {
    persona: 'declared',
    ...identity,
    goals: spec.goals.map((goal, index) => resolve.fill(goal, at(`goals/${index}`))),
    knows: Object.fromEntries(
      Object.entries(spec.knows).map(([fact, text]) => [fact, resolve.fill(text, at(`knows/${fact}`))]),
    ),
    channels: spec.channels,
    reactions,
  };
};
