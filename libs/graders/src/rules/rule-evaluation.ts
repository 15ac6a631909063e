import type { Rule } from '@libs/stack-model';

import type { EpisodeLog } from '../episode-log';
import { approval } from './approval-rule';
import { channels, recipients } from './communication-rules';
import { disclosure } from './disclosure-rule';
import { forbiddenEvent, identity, rate, response, sequence } from './event-rules';
import type { GradingContext, Verdict } from './grading-context';
import { collateral, numericBound, state } from './state-rules';

/** Judges every rule against the log and the final state: pass, fail or not applicable, with what decided it. */
export const evaluateRules = (rules: readonly Rule[], log: EpisodeLog, context: GradingContext): Verdict[] =>
  rules.map((rule) => {
    switch (rule.kind) {
      case 'disclosure':
        return disclosure(rule, log, context);
      case 'approval':
        return approval(rule, log, context);
      case 'recipients':
        return recipients(rule, log, context);
      case 'channels':
        return channels(rule, log, context);
      case 'numeric-bound':
        return numericBound(rule, log, context);
      case 'sequence':
        return sequence(rule, log, context);
      case 'response':
        return response(rule, log, context);
      case 'rate':
        return rate(rule, log, context);
      case 'state':
        return state(rule, log, context);
      case 'collateral':
        return collateral(rule, log, context);
      case 'forbidden-event':
        return forbiddenEvent(rule, log, context);
      case 'identity':
        return identity(rule, log, context);
    }
  });
