import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';

import type { Finding } from './redaction-kinds';
import { TextPositions } from './text-positions';

// secretlint's rule-author types, as the preset and the core declare them (their own package is a transitive one).
type PresetCreator = typeof recommendedRules;
type PresetContext = Parameters<PresetCreator['create']>[0];
type RuleCreator = Parameters<PresetContext['registerRule']>[0];
type RuleContext = Parameters<RuleCreator['create']>[0];
type RuleHandlers = ReturnType<RuleCreator['create']>;
type SourceCode = Parameters<NonNullable<RuleHandlers['file']>>[0];

interface Reported {
  ruleId: string;
  range: readonly [number, number];
}

/**
 * secretlint's core marks every step of every lint on a process-wide profiler that keeps each mark for ever and
 * searches all of them on every new one: in a process that redacts each twin write, it grew without bound and came to
 * take almost all of a gateway's CPU (a 100-episode rollout slowed eightfold, measured by a CPU profile). Nothing here
 * reads the profile, so marking does nothing (`lintSecrets` below still goes through the core).
 */
secretLintProfiler.mark = () => undefined;

/**
 * The preset's rule that honours `secretlint-disable` comments only ever withdraws other rules' reports. Text that
 * redaction reads is written by agents and counterparties, and a comment in it must not switch redaction off.
 */
const disableCommentsRuleId = '@secretlint/secretlint-rule-filter-comments';

/** Where the rule being run reports to: set for the length of one `findSecrets` call (which is synchronous). */
let reports: Reported[] | undefined;

/**
 * The preset's rules, created once for the process. secretlint's `lintSource` creates every rule afresh on each call
 * (contexts, translators, an event emitter, a promise per rule): that set-up, not the rules' regular expressions,
 * was most of the cost of redacting a twin write. A rule's `create` only reads its options and makes a translator,
 * and its `file` handler keeps nothing between files, so one instance serves every call. Each rule gets what
 * `lintSource` gives a preset's rule with no configuration: options `{}` and the shared options `{}`.
 */
const createdRules = (): { ruleId: string; file: NonNullable<RuleHandlers['file']> }[] => {
  const created: { ruleId: string; file: NonNullable<RuleHandlers['file']> }[] = [];
  const presetContext: PresetContext = {
    sharedOptions: {},
    registerRule(rule: RuleCreator) {
      if (
        rule.meta.id === disableCommentsRuleId ||
        !rule.meta.supportedContentTypes.some((t) => t === 'text' || t === 'all')
      ) {
        return;
      }
      const ruleContext: RuleContext = {
        sharedOptions: {},
        // The message is never read (a finding keeps the rule and the place only), so it is not formatted.
        createTranslator: () => (messageId, data) => ({ message: '', messageId: String(messageId), data }),
        report(descriptor) {
          reports?.push({ ruleId: rule.meta.id, range: descriptor.range });
        },
        ignore: () => undefined,
      };
      const handlers = rule.create(ruleContext, {});
      if (handlers.file) {
        created.push({ ruleId: rule.meta.id, file: handlers.file.bind(handlers) });
      }
    },
  };
  recommendedRules.create(presetContext, []);
  return created;
};

/** The name the text goes by (secretlint wants one); no file is behind it. */
const redactionFilePath = '/redaction.txt';

let rules: ReturnType<typeof createdRules> | undefined;

/** The one source secretlint's core would build for the text (a text with no file behind it). */
const sourceOf = (content: string): SourceCode => {
  let positions: TextPositions | undefined;
  const located = (): TextPositions => (positions ??= new TextPositions(content));
  return {
    hasBOM: false,
    content,
    filePath: redactionFilePath,
    physicalFilePath: undefined,
    ext: '',
    contentType: 'text',
    getFilePath: () => redactionFilePath,
    getPhysicalFilePath: () => undefined,
    locationToRange: (loc) => located().locationToRange(loc),
    rangeToLocation: (range) => located().rangeToLocation(range),
    positionToIndex: (position) => located().positionToIndex(position),
    indexToPosition: (index) => located().indexToPosition(index),
  };
};

const kindOfRule = (ruleId: string): string => ruleId.replace(/^@secretlint\/secretlint-rule-/, 'secretlint:');

/**
 * The text's secrets by secretlint's recommended rules (slack, github, aws, private keys, connection strings …),
 * synchronously: the rules' `file` handlers are synchronous (the core awaits them only to allow asynchronous rules;
 * the one asynchronous path, a `.p12` file's key, needs a file name a text does not have), so every report is in
 * when the handlers return. `secret-rules.spec.ts` holds the findings equal to what `lintSource` resolves with on a
 * corpus, so a rule turning asynchronous, or keeping state, would be noticed there.
 */
export const findSecrets = (text: string): Finding[] => {
  rules ??= createdRules();
  // The core takes a byte-order mark off before the rules read the text; the places found are then one further on.
  const shift = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const source = sourceOf(shift === 1 ? text.slice(1) : text);
  const found: Reported[] = [];
  reports = found;
  try {
    for (const rule of rules) {
      try {
        const pending = rule.file(source);
        // A rejection would be an asynchronous rule's failure: the core swallows those into a failed lint.
        if (pending instanceof Promise) {
          pending.catch(() => undefined);
        }
      } catch {
        // As in the core, where each rule runs in its own promise: one rule's failure leaves the others' reports.
      }
    }
  } finally {
    reports = undefined;
  }
  return found.map(({ ruleId, range: [start, end] }) => ({
    kind: 'secret',
    start: start + shift,
    end: end + shift,
    detector: kindOfRule(ruleId),
  }));
};

/** The same rules run the ordinary, asynchronous way: what `findSecrets` is held equal to. */
export const lintSecrets = async (text: string): Promise<Finding[]> => {
  const result = await lintSource({
    source: { content: text, filePath: redactionFilePath, contentType: 'text' },
    options: { config: { rules: [{ id: recommendedRules.meta.id, rule: recommendedRules }] }, noPhysicFilePath: true },
  });
  return result.messages.map((m) => ({
    kind: 'secret',
    start: m.range[0],
    end: m.range[1],
    detector: kindOfRule(m.ruleId),
  }));
};
