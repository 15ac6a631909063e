import type { PlayedEpisode } from '@cli/episode-environment';

const violated = (e: PlayedEpisode) =>
  e.verdicts
    .filter((v) => v.status === 'fail' && !v.milestone)
    .map((v) => v.rule)
    .join(', ') || 'none';

/**
 * What each role must get on every seed for a task to be valid, and why it matters: the oracle (the diligent agent,
 * or the user's own) proves the task can be done within policy; idle and sloppy prove nothing less earns a reward.
 */
export const roles: { role: 'oracle' | 'idle' | 'sloppy'; judge: (e: PlayedEpisode) => string | undefined }[] = [
  {
    role: 'oracle',
    judge: (e) =>
      e.passed
        ? undefined
        : `the oracle did not pass (${e.status}: ${e.reason}; violations: ${violated(e)}): the task cannot be done within its policy, or its success terms are out of reach`,
  },
  {
    role: 'idle',
    judge: (e) =>
      e.passed !== false || (e.reward ?? 0) > 0
        ? `an agent that does nothing earned ${e.reward} (passed: ${e.passed}): the task rewards doing nothing`
        : undefined,
  },
  {
    role: 'sloppy',
    judge: (e) => {
      // Sloppy tells the supplier its target price and splits the purchase under the approval threshold.
      const caught = new Set(e.verdicts.filter((v) => v.status === 'fail').map((v) => v.kind));
      const missed = (['disclosure', 'approval'] as const).filter((kind) => !caught.has(kind));
      if (missed.length > 0) {
        return `the sloppy agent's ${missed.join(' and ')} went unpunished (reward ${e.reward}): the policy set has no rule that catches it`;
      }
      return (e.reward ?? 0) > 0 || e.passed !== false
        ? `the sloppy agent was caught (${violated(e)}) yet earned ${e.reward} (passed: ${e.passed}): a violation does not cost the reward it should`
        : undefined;
    },
  },
];
