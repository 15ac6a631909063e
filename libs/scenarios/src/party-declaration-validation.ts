import { bodyExpressions, expressionProblem, templateExpressions } from '@libs/party-reactions';
import type { DeclaredPartySpec, NegotiatorSpec, TwinOperationSpec } from '@libs/stack-model';

export interface PartyProblem {
  pointer: string;
  message: string;
}

/** What a declared party may refer to: the stack's services, and the value names its templates may use. */
export interface PartyReferences {
  services: string[];
  /** Each service's tables and their fields (`null` when unknown); when given, a watched table must be one. */
  tables?: Record<string, Record<string, readonly string[] | null>>;
  /** The services that are twin packs: they tell their own events, not one per record change. */
  packs?: string[];
  /** The domain events the stack's twins record, when known: a reaction to any other could never fire. */
  events?: ReadonlySet<string>;
  /** Which pack each pack service is (`email`, `slack` …): what a party's mail and Slack messages go through. */
  packKinds?: Record<string, string>;
  /** Checks an instance-time template or expression (mathjs, as the rest of the scenario's values). */
  uses: (expression: number | string, pointer: string, template?: boolean) => void;
  /** Every value name of the instance: what a reaction's CEL may read besides event, party, agent and review. */
  valueNames: string[];
}

/**
 * Refuses, with its pointer, what would make a declared party act on nothing: a service the stack does not have, a
 * CEL condition that does not parse or names an unknown value, a template naming one.
 */
export const checkDeclaredParty = (
  name: string,
  spec: DeclaredPartySpec,
  references: PartyReferences,
  problems: PartyProblem[],
): void => {
  const at = (field: string) => `/parties/${name}/${field}`;
  const service = (value: string, pointer: string) => {
    if (!references.services.includes(value)) {
      problems.push({
        pointer,
        message: `the stack has no service "${value}"; it has ${references.services.join(', ')}`,
      });
    }
  };
  const cel = (source: string, pointer: string) => {
    const problem = expressionProblem(source, references.valueNames);
    if (problem) {
      problems.push({ pointer, message: problem });
    }
  };
  const event = (name: string, pointer: string) => {
    if (references.events && !references.events.has(name)) {
      problems.push({ pointer, message: `no twin of this stack records "${name}"` });
    }
  };
  const celTemplate = (text: string, pointer: string) =>
    templateExpressions(text).forEach((source) => cel(source, pointer));
  const operation = (op: TwinOperationSpec, pointer: string) => {
    service(op.service, `${pointer}/service`);
    celTemplate(op.path, `${pointer}/path`);
    bodyExpressions(op.body).forEach((found) => cel(found.source, `${pointer}/body${found.pointer}`));
  };
  const saying = (say: object, pointer: string) => {
    for (const [kind, fields] of Object.entries(say)) {
      for (const [field, text] of Object.entries(fields as Record<string, unknown>)) {
        if (typeof text === 'string') {
          celTemplate(text, `${pointer}/${kind}/${field}`);
        }
      }
    }
  };
  const act = (value: TwinOperationSpec | { say: object }, pointer: string) =>
    'say' in value ? saying(value.say, `${pointer}/say`) : operation(value, pointer);
  const delay = (value: { business_hours?: number | string; business_days?: number | string }, pointer: string) => {
    for (const [field, expression] of Object.entries(value)) {
      references.uses(expression, `${pointer}/${field}`);
    }
  };

  if ('outside' in spec.who) {
    for (const field of ['name', 'email'] as const) {
      const text = spec.who.outside[field];
      if (text !== undefined) {
        references.uses(text, at(`who/outside/${field}`), true);
      }
    }
  } else if (
    'employee' in spec.who &&
    typeof spec.who.employee === 'object' &&
    spec.who.employee.min_approval_limit !== undefined
  ) {
    references.uses(spec.who.employee.min_approval_limit, at('who/employee/min_approval_limit'));
  }
  spec.goals.forEach((goal, index) => references.uses(goal, at(`goals/${index}`), true));
  Object.entries(spec.knows).forEach(([fact, text]) => references.uses(text, at(`knows/${fact}`), true));
  spec.channels.forEach((channel, index) => service(channel, at(`channels/${index}`)));
  spec.behaviour.forEach((behaviour, index) => {
    const pointer = at(`behaviour/${index}`);
    if ('requester' in behaviour) {
      delay(behaviour.requester.after, `${pointer}/requester/after`);
      act(behaviour.requester.do, `${pointer}/requester/do`);
    } else if ('responder' in behaviour) {
      service(behaviour.responder.channel, `${pointer}/responder/channel`);
      delay(behaviour.responder.after, `${pointer}/responder/after`);
    } else if ('approver' in behaviour) {
      const approver = behaviour.approver;
      if (approver.watch.where) {
        cel(approver.watch.where, `${pointer}/approver/watch/where`);
      }
      if ('event' in approver.watch) {
        event(approver.watch.event, `${pointer}/approver/watch/event`);
        cel(approver.watch.amount, `${pointer}/approver/watch/amount`);
      } else {
        const { service: watched, table, amount_field: field } = approver.watch;
        service(watched, `${pointer}/approver/watch/service`);
        const tables = references.tables?.[watched];
        if (references.packs?.includes(watched)) {
          problems.push({
            pointer: `${pointer}/approver/watch/service`,
            message: `"${watched}" is a twin pack: it tells its own events, not one per record (watch one of those)`,
          });
        } else if (tables && !(table in tables)) {
          problems.push({
            pointer: `${pointer}/approver/watch/table`,
            message: `"${watched}" has no table "${table}"; it has ${Object.keys(tables).join(', ') || 'none'}`,
          });
        } else if (tables?.[table] && !tables[table]?.includes(field)) {
          problems.push({
            pointer: `${pointer}/approver/watch/amount_field`,
            message: `"${watched}.${table}" has no field "${field}"; it has ${tables[table]?.join(', ')}`,
          });
        }
      }
      references.uses(approver.over, `${pointer}/approver/over`);
      if (approver.limit !== undefined) {
        references.uses(approver.limit, `${pointer}/approver/limit`);
      } else if (!('employee' in spec.who)) {
        problems.push({
          pointer: `${pointer}/approver/limit`,
          message: 'someone outside the company has no approval limit of its own: give one',
        });
      }
      delay(approver.after, `${pointer}/approver/after`);
      if (approver.say) {
        saying(approver.say, `${pointer}/approver/say`);
      }
      if (approver.record) {
        operation(approver.record, `${pointer}/approver/record`);
      }
    } else if ('negotiator' in behaviour) {
      checkNegotiator(behaviour.negotiator, `${pointer}/negotiator`, {
        service,
        cel,
        event,
        operation,
        delay,
        references,
        problems,
      });
    } else {
      references.uses(behaviour.background.messages, `${pointer}/background/messages`);
    }
  });
  for (const use of servicesActedOn(spec, references.packKinds ?? {})) {
    if (references.services.includes(use.service) && !spec.channels.includes(use.service)) {
      problems.push({
        pointer: at(use.pointer.slice(1)),
        message: `${name} acts on "${use.service}", which is not among its channels (${spec.channels.join(', ') || 'none'}): declare it there, or act on one of them`,
      });
    }
  }
  spec.reactions.forEach((reaction, index) => {
    const pointer = at(`reactions/${index}`);
    // A state trigger's predicate is checked with the success predicates (scenario-predicates.ts).
    if ('event' in reaction.when) {
      event(reaction.when.event, `${pointer}/when/event`);
      if (reaction.when.where) {
        cel(reaction.when.where, `${pointer}/when/where`);
      }
    }
    delay(reaction.after, `${pointer}/after`);
    act(reaction.do, `${pointer}/do`);
  });
};

interface Checks {
  service: (value: string, pointer: string) => void;
  cel: (source: string, pointer: string) => void;
  event: (name: string, pointer: string) => void;
  operation: (op: TwinOperationSpec, pointer: string) => void;
  delay: (value: { business_hours?: number | string; business_days?: number | string }, pointer: string) => void;
  references: PartyReferences;
  problems: PartyProblem[];
}

/** The names an expression of a negotiator's record, or of its answer to an order, may read besides the values. */
const negotiationNames = ['terms', 'order', 'agreed', 'reasons'];

const checkNegotiator = (negotiator: NegotiatorSpec, pointer: string, checks: Checks): void => {
  const { service, cel, event, operation, delay, references, problems } = checks;
  service(negotiator.channel, `${pointer}/channel`);
  const kind = references.packKinds?.[negotiator.channel];
  if (references.packKinds && kind !== 'email' && kind !== 'slack') {
    problems.push({
      pointer: `${pointer}/channel`,
      message: `a negotiator speaks on the stack's mail or Slack pack; "${negotiator.channel}" is neither`,
    });
  }
  if (Object.keys(negotiator.issues).length === 0) {
    problems.push({ pointer: `${pointer}/issues`, message: 'a negotiator needs at least one issue to negotiate' });
  }
  for (const [issue, value] of Object.entries(negotiator.issues)) {
    references.uses(value.opening, `${pointer}/issues/${issue}/opening`);
    references.uses(value.reservation, `${pointer}/issues/${issue}/reservation`);
  }
  references.uses(negotiator.tactic, `${pointer}/tactic`, true);
  references.uses(negotiator.patience, `${pointer}/patience`);
  for (const [field, value] of Object.entries(negotiator.walk_away)) {
    references.uses(value, `${pointer}/walk_away/${field}`);
  }
  delay(negotiator.after, `${pointer}/after`);
  const withNegotiation = (source: string, at: string) => {
    const problem = expressionProblem(source, [...references.valueNames, ...negotiationNames]);
    if (problem) {
      problems.push({ pointer: at, message: problem });
    }
  };
  const negotiationOperation = (op: TwinOperationSpec, at: string) => {
    service(op.service, `${at}/service`);
    templateExpressions(op.path).forEach((source) => withNegotiation(source, `${at}/path`));
    bodyExpressions(op.body).forEach((found) => withNegotiation(found.source, `${at}/body${found.pointer}`));
  };
  if (negotiator.opens) {
    event(negotiator.opens.event, `${pointer}/opens/event`);
    if (negotiator.opens.where) {
      cel(negotiator.opens.where, `${pointer}/opens/where`);
    }
    if (negotiator.opens.subject) {
      templateExpressions(negotiator.opens.subject).forEach((source) => cel(source, `${pointer}/opens/subject`));
    }
    if (negotiator.opens.record) {
      negotiationOperation(negotiator.opens.record, `${pointer}/opens/record`);
    }
  }
  if (negotiator.record) {
    negotiationOperation(negotiator.record, `${pointer}/record`);
  }
  const honours = negotiator.honours;
  if (honours) {
    event(honours.event, `${pointer}/honours/event`);
    if (honours.where) {
      cel(honours.where, `${pointer}/honours/where`);
    }
    operation(honours.read, `${pointer}/honours/read`);
    for (const [issue, expression] of Object.entries(honours.terms)) {
      if (!(issue in negotiator.issues)) {
        problems.push({
          pointer: `${pointer}/honours/terms/${issue}`,
          message: `"${issue}" is not an issue of this negotiator; it has ${Object.keys(negotiator.issues).join(', ')}`,
        });
      }
      withNegotiation(expression, `${pointer}/honours/terms/${issue}`);
    }
    negotiationOperation(honours.accept, `${pointer}/honours/accept`);
    negotiationOperation(honours.refuse, `${pointer}/honours/refuse`);
  }
};

/**
 * Every service a party acts on, with the pointer (under the party) of what makes it act there: twin operations by
 * their service, mail and Slack by the stack's pack of that kind, a responder's and a negotiator's channel.
 */
export const servicesActedOn = (
  spec: DeclaredPartySpec,
  packKinds: Record<string, string>,
): { service: string; pointer: string }[] => {
  const packOf = (kind: string) => Object.entries(packKinds).find(([, k]) => k === kind)?.[0];
  const saying = (say: object | undefined, pointer: string) =>
    Object.keys(say ?? {}).flatMap((kind) => {
      const service = packOf(kind === 'mail' ? 'email' : kind);
      return service ? [{ service, pointer: `${pointer}/${kind}` }] : [];
    });
  const operation = (op: TwinOperationSpec | undefined, pointer: string) =>
    op ? [{ service: op.service, pointer: `${pointer}/service` }] : [];
  const act = (value: TwinOperationSpec | { say: object }, pointer: string) =>
    'say' in value ? saying(value.say, `${pointer}/say`) : operation(value, pointer);
  return [
    ...spec.behaviour.flatMap((behaviour, index) => {
      const at = `/behaviour/${index}`;
      if ('requester' in behaviour) {
        return act(behaviour.requester.do, `${at}/requester/do`);
      }
      if ('responder' in behaviour) {
        return [{ service: behaviour.responder.channel, pointer: `${at}/responder/channel` }];
      }
      if ('approver' in behaviour) {
        return [
          ...saying(behaviour.approver.say, `${at}/approver/say`),
          ...operation(behaviour.approver.record, `${at}/approver/record`),
        ];
      }
      if ('negotiator' in behaviour) {
        const negotiator = behaviour.negotiator;
        const honours = negotiator.honours;
        return [
          { service: negotiator.channel, pointer: `${at}/negotiator/channel` },
          ...operation(negotiator.record, `${at}/negotiator/record`),
          ...operation(negotiator.opens?.record, `${at}/negotiator/opens/record`),
          ...(honours
            ? [
                ...operation(honours.read, `${at}/negotiator/honours/read`),
                ...operation(honours.accept, `${at}/negotiator/honours/accept`),
                ...operation(honours.refuse, `${at}/negotiator/honours/refuse`),
              ]
            : []),
        ];
      }
      return saying({ slack: true }, `${at}/background/channels`).map((use) => ({
        ...use,
        pointer: `${at}/background`,
      }));
    }),
    ...spec.reactions.flatMap((reaction, index) => act(reaction.do, `/reactions/${index}/do`)),
  ];
};

type Said = { say: object } | object;

/** The Slack channels a declared party posts to, with their pointers under the party (for the company's check). */
export const declaredChannels = (spec: DeclaredPartySpec): { channel: string; pointer: string }[] => {
  const slackOf = (act: Said | undefined, pointer: string) => {
    const say = act && 'say' in act ? (act.say as { slack?: { channel: string } }) : undefined;
    return say?.slack ? [{ channel: say.slack.channel, pointer: `${pointer}/say/slack/channel` }] : [];
  };
  return [
    ...spec.behaviour.flatMap((behaviour, index) => {
      const at = `/behaviour/${index}`;
      if ('requester' in behaviour) {
        return slackOf(behaviour.requester.do, `${at}/requester/do`);
      }
      if ('approver' in behaviour) {
        return slackOf(behaviour.approver.say ? { say: behaviour.approver.say } : undefined, `${at}/approver`);
      }
      if ('background' in behaviour) {
        return behaviour.background.channels.map((channel, i) => ({
          channel,
          pointer: `${at}/background/channels/${i}`,
        }));
      }
      return [];
    }),
    ...spec.reactions.flatMap((reaction, index) => slackOf(reaction.do, `/reactions/${index}/do`)),
  ];
};
