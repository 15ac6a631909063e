import { conditionHolds, fillBody, fillTemplate, useBusinessCalendar } from '@libs/party-reactions';
import type { PlanStep } from '@libs/stack-model';
import { addBusinessDays, businessDaysBetween } from '@libs/workflow-contracts';

import { AgentSession, ReferenceAgent } from './agent-session';

/**
 * What only a reference plan may see besides its session: whether a predicate (in the success predicates' context)
 * holds on the twins' records now. The runner gives it to the oracle and its traps, never to an agent under test.
 */
export interface PlanInsight {
  holds(predicate: string): Promise<boolean>;
}

// A plan writes dates on the office calendar (`add_business_days(now, 3)`), as the parties do.
useBusinessCalendar({ addBusinessDays, businessDaysBetween });

/** Waits on a predicate at most this many times: each wait is an action, and a plan must end. */
const maxWaits = 50;

/** A service's answer as JSON, or its text when it is not JSON. */
const answerOf = (text: string): unknown => {
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return text;
  }
};

/** A twin operation as the agent: through its session's endpoint for the service, with its own token. */
const call = async (
  session: AgentSession,
  step: Extract<PlanStep, { do: unknown }>['do'],
  context: Record<string, unknown>,
): Promise<unknown> => {
  const endpoint = session.endpoints[step.service];
  if (!endpoint) {
    throw new Error(`the plan calls ${step.service}, which is not among the agent's tools`);
  }
  const path = fillTemplate(step.path, context, encodeURIComponent);
  const response = await fetch(`${endpoint.baseUrl}${path}`, {
    method: step.method,
    headers: {
      authorization: `Bearer ${endpoint.token}`,
      ...(step.body === undefined ? {} : { 'content-type': 'application/json' }),
      // PostgREST answers a write with the rows only when asked; other twins ignore the header.
      ...(step.method === 'GET' ? {} : { prefer: 'return=representation' }),
    },
    ...(step.body === undefined ? {} : { body: JSON.stringify(fillBody(step.body, context)) }),
  });
  const text = await response.text();
  if (!response.ok) {
    throw new Error(`${step.method} ${step.service}${path}: ${response.status} ${text.slice(0, 300)}`);
  }
  return answerOf(text);
};

const say = async (
  session: AgentSession,
  saying: Extract<PlanStep, { say: unknown }>['say'],
  context: Record<string, unknown>,
): Promise<unknown> => {
  if ('mail' in saying) {
    const { to, subject, text, body } = saying.mail;
    const recipients = fillTemplate(to, context)
      .split(/[,;\s]+/)
      .filter((address) => address.length > 0);
    return session.mail('/me/sendMail', {
      body: {
        message: {
          subject: fillTemplate(subject, context),
          body: { contentType: 'text', content: fillTemplate(text ?? body ?? '', context) },
          toRecipients: recipients.map((address) => ({ emailAddress: { address } })),
        },
      },
    });
  }
  const channel = fillTemplate(saying.slack.channel, context);
  if (channel.startsWith('#')) {
    // A person joins a public channel before posting in it.
    await session.slack('conversations.join', { channel }).catch(() => undefined);
  }
  const threadTs = saying.slack.thread_ts === undefined ? undefined : fillTemplate(saying.slack.thread_ts, context);
  return session.slack('chat.postMessage', {
    channel,
    text: fillTemplate(saying.slack.text, context),
    ...(threadTs ? { thread_ts: threadTs } : {}),
  });
};

/** Waits until the predicate holds, for at most `maxDays` business days; false when the episode ended meanwhile. */
const waitUntil = async (
  session: AgentSession,
  insight: PlanInsight,
  predicate: string,
  maxDays: number,
): Promise<boolean> => {
  const from = Date.parse(session.now());
  for (let waits = 0; waits < maxWaits && businessDaysBetween(from, Date.parse(session.now())) < maxDays; waits++) {
    if (await insight.holds(predicate)) {
      return true;
    }
    const waited = await session.wait();
    if (waited.finished) {
      return false;
    }
  }
  return true;
};

/**
 * The generic reference agent: follows a plan of steps over the instance's values (an oracle's, or a trap's), acting
 * as the agent through its session. `{{ }}` templates are CEL over the values, the answers saved so far, `agent` and
 * `now`. It knows no domain: what it does is what the scenario's plan says.
 */
export const planAgent = (
  name: string,
  steps: readonly PlanStep[],
  values: Record<string, unknown>,
  insight: PlanInsight,
): ReferenceAgent => ({
  name,
  async run(session) {
    const saved: Record<string, unknown> = {};
    const contextNow = () => ({
      ...values,
      ...saved,
      agent: {
        id: session.identity.employeeId,
        email: session.identity.email,
        name: session.identity.name,
        slack_user: session.identity.slackUser,
      },
      now: session.now(),
    });
    for (const step of steps) {
      // A step with `when` plays only in the instances its condition holds for: a plan's one way to branch.
      if (step.when !== undefined && !conditionHolds(step.when, contextNow())) {
        continue;
      }
      if ('do' in step) {
        const answer = await call(session, step.do, contextNow());
        if (step.save) {
          saved[step.save] = answer;
        }
      } else if ('say' in step) {
        const answer = await say(session, step.say, contextNow());
        if (step.save) {
          saved[step.save] = answer;
        }
      } else if ('until' in step.wait) {
        if (!(await waitUntil(session, insight, step.wait.until, step.wait.max_business_days))) {
          return;
        }
      } else {
        const days = 'business_days' in step.wait ? step.wait.business_days : step.wait.business_hours / 8;
        if ((await session.wait(days)).finished) {
          return;
        }
      }
    }
    await session.finish();
  },
});
