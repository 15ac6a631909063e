import { bodyExpressions, expressionProblem, templateExpressions } from '@libs/party-reactions';
import type { DeclaredPartySpec, TwinOperationSpec } from '@libs/stack-model';

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
  } else if (typeof spec.who.employee === 'object' && spec.who.employee.min_approval_limit !== undefined) {
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
    } else {
      references.uses(behaviour.background.messages, `${pointer}/background/messages`);
    }
  });
  spec.reactions.forEach((reaction, index) => {
    const pointer = at(`reactions/${index}`);
    event(reaction.when.event, `${pointer}/when/event`);
    if (reaction.when.where) {
      cel(reaction.when.where, `${pointer}/when/where`);
    }
    delay(reaction.after, `${pointer}/after`);
    act(reaction.do, `${pointer}/do`);
  });
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
