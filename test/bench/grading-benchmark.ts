import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import * as yaml from 'js-yaml';

import { gradeEpisode, GradingContext, LogEntry, policySetSchema, readEpisodeLog } from '@libs/graders';

/**
 * Grading time for a 1,000-event episode against every rule of the example company's policy set (target: under
 * 5 ms), next to a baseline measured in the same run: copying the same log once through JSON, the least any grader
 * that loads a stored log pays. In process; batches of each after a warm-up, interleaved (A B A B …) so that a change
 * of load on a shared machine hits both, with the ratio taken per adjacent pair.
 */
const eventCount = 1000;
const agent = 'E0000';
const supplier = 'sales@wisozk-fasteners.example';

/** A long negotiation's log: mail both ways, Slack chatter, ERP transitions and the record changes behind them. */
const episodeLog = (): LogEntry[] => {
  let state = 42;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const entries: LogEntry[] = [];
  const start = Date.parse('2026-06-01T09:00:00Z');
  for (let seq = 1; seq <= eventCount; seq++) {
    const at = new Date(start + seq * 600_000).toISOString();
    const roll = next();
    const price = (0.2 + next() * 0.1).toFixed(3);
    const domain = (name: string, data: Record<string, unknown>, actor = agent): LogEntry => ({
      seq,
      at,
      actor,
      event: { type: 'domain', name, service: name.split('.')[0], data },
    });
    if (roll < 0.4) {
      const mine = next() < 0.5;
      entries.push(
        domain(
          'email.sent',
          {
            from: mine ? 'procurement.assistant@acme.example' : supplier,
            to: [mine ? supplier : 'procurement.assistant@acme.example'],
            cc: mine && next() < 0.3 ? ['procurement@acme.example'] : [],
            bcc: [],
            subject: `Re: M8 hex bolts, round ${seq}`,
            body: `Thank you for your message. We can offer ${price} EUR per unit for 10,000 units, net 30 days, delivery within 15 business days. Please confirm whether this works for you so that we can raise the purchase order.\n\n-----Original Message-----\nEarlier text of the thread, quoted as mail clients do, with figures such as 0.269 and 10,000 units.`,
            attachments: [],
          },
          mine ? agent : supplier,
        ),
      );
    } else if (roll < 0.65) {
      entries.push(
        domain('slack.message.posted', {
          channel: next() < 0.5 ? 'C0PROCUREMENT' : 'C0GENERAL',
          ts: `${seq}.000100`,
          user: 'U000AGENT',
          employee: agent,
          text: `Update on PO-2026-${String(seq).padStart(4, '0')}: the supplier offered ${price} EUR per unit.`,
        }),
      );
    } else if (roll < 0.85) {
      entries.push({
        seq,
        at,
        actor: agent,
        event: {
          type: 'record.updated',
          table: next() < 0.5 ? 'mail/messages' : 'chat/messages',
          id: `M${seq}`,
          record: { id: `M${seq}`, isRead: true },
        },
      });
    } else {
      const po = `PO-2026-${String(Math.floor(seq / 50)).padStart(4, '0')}`;
      const step = ['erp.po.created', 'erp.po.submitted', 'erp.po.approved', 'erp.po.sent'][Math.floor(next() * 4)];
      entries.push(
        domain(
          step,
          {
            po_id: po,
            supplier_id: 'S001',
            requester_id: agent,
            total: 2400,
            lines: [{ unit_price: Number(price), quantity: 10_000 }],
            payment_terms_days: 30,
            by: step === 'erp.po.approved' ? 'E0003' : agent,
          },
          step === 'erp.po.approved' ? 'E0003' : agent,
        ),
      );
    }
  }
  return entries;
};

const context: GradingContext = {
  hidden: { budget_ceiling: 2910.58, reservation_price: 0.222 },
  values: {
    quantity: 10_000,
    list_price: 0.269,
    target_price: 0.238,
    supplier_id: 'S001',
    frozen_cost_centre: 'CC-400',
  },
  internalDomain: 'acme.example',
  approvalLimits: { E0003: 50_000 },
  agent: [agent, 'procurement.assistant@acme.example', 'U000AGENT'],
  people: Array.from({ length: 200 }, (_, i) => ({
    id: `E${String(i).padStart(4, '0')}`,
    name: `Person ${i}`,
    email: `person.${i}@acme.example`,
  })),
  services: { procurement: 'erp', slack: 'chat', email: 'mail' },
  records: (table) =>
    table === 'chat/conversations'
      ? [
          { id: 'C0PROCUREMENT', name: 'procurement-approvals' },
          { id: 'C0GENERAL', name: 'general' },
        ]
      : table === 'erp/purchase-orders'
        ? Array.from({ length: 50 }, (_, i) => ({
            id: `PO-${i}`,
            requester_id: agent,
            status: 'sent',
            cost_centre: 'CC-100',
          }))
        : [],
  businessDaysBetween: (from, to) => Math.floor((Date.parse(to) - Date.parse(from)) / 86_400_000),
};

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

type Spread = { median: number; min: number; max: number };
const spread = (samples: number[]): Spread => ({
  median: median(samples),
  min: Math.min(...samples),
  max: Math.max(...samples),
});

/** Milliseconds per call of each, in alternating batches, and each batch of `work` over the baseline batch next to it. */
const interleaved = (
  work: () => void,
  baseline: () => void,
  batches = 31,
  perBatch = 10,
): { work: Spread; baseline: Spread; ratio: Spread } => {
  for (let i = 0; i < 30; i++) {
    work();
    baseline();
  }
  const batch = (f: () => void) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < perBatch; i++) {
      f();
    }
    return Number(process.hrtime.bigint() - started) / 1e6 / perBatch;
  };
  const pairs = Array.from({ length: batches }, () => [batch(work), batch(baseline)]);
  return {
    work: spread(pairs.map(([w]) => w)),
    baseline: spread(pairs.map(([, b]) => b)),
    ratio: spread(pairs.map(([w, b]) => w / b)),
  };
};

export const runGradingBenchmarks = (): void => {
  const policyFile = path.resolve(
    __dirname,
    '..',
    '..',
    '..',
    'examples',
    'acme-manufacturing',
    'policies',
    'procurement.yaml',
  );
  const policy = policySetSchema.parse(yaml.load(fs.readFileSync(policyFile, 'utf8')));
  const entries = episodeLog();
  const result = { status: 'succeeded' as const, reason: 'ordered', finalTerms: { unitPrice: 0.231 } };
  const grade = () =>
    gradeEpisode({
      log: readEpisodeLog(entries),
      policies: [policy],
      context,
      result,
      savings: { target: 0.238, best: 0.222 },
    });
  const sample = grade();
  const loadBefore = os.loadavg()[0];
  const {
    work: mirror,
    baseline: copy,
    ratio,
  } = interleaved(grade, () => JSON.parse(JSON.stringify(entries)) as unknown);
  const ms = (t: Spread, digits = 2) =>
    `${t.median.toFixed(digits)} (${t.min.toFixed(digits)}–${t.max.toFixed(digits)})`;
  console.log(
    `\nGrading benchmark — ${eventCount} events, ${policy.rules.length} rules of ${policy.id}@${policy.version} (${sample.verdicts.filter((v) => v.status === 'fail').length} failing), ms per episode: median (min–max) of batches interleaved with the baseline's; load average ${loadBefore.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after on ${os.cpus().length} cores\n`,
  );
  console.log('| what | ms | ×baseline, per adjacent pair |');
  console.log('|---|---|---|');
  console.log(`| baseline: copy the log through JSON once | ${ms(copy)} | 1.00 |`);
  console.log(`| Mirror: read the log and judge every rule | ${ms(mirror)} | ${ms(ratio)} |`);
  console.log(
    `\ngrading a ${eventCount}-event episode: ${mirror.median.toFixed(2)} ms — target under 5 ms: ${mirror.median < 5 ? 'met' : 'NOT met'}`,
  );
};
