import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';

import type { Finding } from './redaction-kinds';

// secretlint's rule-author types, as the preset and the core declare them (their own package is a transitive one).
type PresetCreator = typeof recommendedRules;
type PresetContext = Parameters<PresetCreator['create']>[0];
type RuleCreator = Parameters<PresetContext['registerRule']>[0];
type RuleContext = Parameters<RuleCreator['create']>[0];
type CoreConfig = Parameters<typeof lintSource>[0]['options']['config'];

interface Reported {
  ruleId: string;
  range: readonly [number, number];
}

/**
 * secretlint's recommended preset, each of its rules' reports also handed to `sink` as the rule makes them. The rules'
 * `file` handlers are synchronous (secretlint's core awaits them only to allow asynchronous rules), so once
 * `lintSource` has been called every report is in the sink: redaction can then be synchronous (a log line must be
 * written before the process moves on, and the twins' write path stays one await shorter). `secret-rules.spec.ts`
 * holds the reports collected this way equal to the messages `lintSource` resolves with, so a rule turning
 * asynchronous would be noticed there.
 */
const observedPreset = (sink: (reported: Reported) => void): PresetCreator => ({
  ...recommendedRules,
  create(context: PresetContext, options) {
    const observing: PresetContext = {
      ...context,
      registerRule(rule: RuleCreator, defaultValue) {
        context.registerRule(
          {
            ...rule,
            create: (ruleContext: RuleContext, ruleOptions) =>
              rule.create(
                {
                  ...ruleContext,
                  report(descriptor) {
                    sink({ ruleId: rule.meta.id, range: descriptor.range });
                    ruleContext.report(descriptor);
                  },
                },
                ruleOptions,
              ),
          },
          defaultValue,
        );
      },
    };
    recommendedRules.create(observing, options);
  },
});

/**
 * secretlint's core marks every step of every lint on a process-wide profiler that keeps each mark for ever and
 * searches all of them on every new one: in a process that redacts each twin write, it grew without bound and came to
 * take almost all of a gateway's CPU (a 100-episode rollout slowed eightfold, measured by a CPU profile). Nothing here
 * reads the profile, so marking does nothing.
 */
secretLintProfiler.mark = () => undefined;

const kindOfRule = (ruleId: string): string => ruleId.replace(/^@secretlint\/secretlint-rule-/, 'secretlint:');

/** The text's secrets by secretlint's recommended rules (slack, github, aws, private keys, connection strings …). */
export const findSecrets = (text: string): Finding[] => {
  const found: Reported[] = [];
  const config: CoreConfig = { rules: [{ id: recommendedRules.meta.id, rule: observedPreset((r) => found.push(r)) }] };
  // The settled result adds nothing the sink has not seen; a rejection would only repeat a throw seen below.
  lintSource({
    source: { content: text, filePath: '/redaction.txt', contentType: 'text' },
    options: { config, noPhysicFilePath: true },
  }).catch(() => undefined);
  return found.map(({ ruleId, range: [start, end] }) => ({ kind: 'secret', start, end, detector: kindOfRule(ruleId) }));
};

/** The same rules run the ordinary, asynchronous way: what `findSecrets` is held equal to. */
export const lintSecrets = async (text: string): Promise<Finding[]> => {
  const result = await lintSource({
    source: { content: text, filePath: '/redaction.txt', contentType: 'text' },
    options: { config: { rules: [{ id: recommendedRules.meta.id, rule: recommendedRules }] }, noPhysicFilePath: true },
  });
  return result.messages.map((m) => ({
    kind: 'secret',
    start: m.range[0],
    end: m.range[1],
    detector: kindOfRule(m.ruleId),
  }));
};
