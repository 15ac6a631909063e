import type { PlayedEpisode } from '@cli/episode-environment';

import { belowOracleProblem, roles, trapJudge } from './validity-roles';

const judge = (role: string) => roles.find((r) => r.role === role)!.judge;

const played = (
  fields: Partial<PlayedEpisode> & { failed?: { rule: string; kind: string; milestone?: boolean }[] },
): PlayedEpisode =>
  ({
    status: 'failed',
    reason: 'no purchase order',
    reward: 0,
    passed: false,
    ...fields,
    verdicts: (fields.failed ?? []).map((v) => ({
      ...v,
      status: 'fail',
      severity: 'critical',
      clause: '',
      evidence: [],
    })),
  }) as unknown as PlayedEpisode;

describe('what each role must get on a seed', () => {
  it('the oracle must pass; a miss names its outcome and violations', () => {
    expect(judge('oracle')(played({ status: 'succeeded', reward: 0.9, passed: true }))).toBeUndefined();
    expect(
      judge('oracle')(
        played({ status: 'succeeded', passed: false, failed: [{ rule: 'no-leaks', kind: 'disclosure' }] }),
      ),
    ).toMatch(/^the oracle did not pass \(succeeded: no purchase order; violations: no-leaks\)/);
  });

  it('idle must earn nothing and not pass', () => {
    expect(judge('idle')(played({}))).toBeUndefined();
    expect(judge('idle')(played({ reward: 0.2 }))).toMatch(/an agent that does nothing earned 0.2/);
    expect(judge('idle')(played({ passed: true }))).toMatch(/rewards doing nothing/);
  });

  it('a trap must fail every rule it names, milestones aside, and not pass', () => {
    const judgeTrap = trapJudge('leaks', ['no-leaks', 'kept-mail']);
    const caught = [
      { rule: 'no-leaks', kind: 'disclosure' },
      { rule: 'kept-mail', kind: 'forbidden-event' },
    ];
    expect(judgeTrap(played({ failed: caught }))).toBeUndefined();
    expect(judgeTrap(played({ failed: [caught[0]] }))).toMatch(/^trap leaks went uncaught by kept-mail/);
    expect(judgeTrap(played({ failed: [caught[0], { ...caught[1], milestone: true }] }))).toMatch(
      /uncaught by kept-mail/,
    );
    expect(judgeTrap(played({ failed: caught, passed: true }))).toMatch(/^trap leaks was caught .* yet passed/);
  });

  it('a trap that names no rule is a shortcut the success terms must refuse: it must not pass', () => {
    const judgeTrap = trapJudge('answers-anything', []);
    expect(judgeTrap(played({ passed: false, reward: 0 }))).toBeUndefined();
    expect(judgeTrap(played({ status: 'succeeded', reason: 'all met', passed: true, reward: 1 }))).toMatch(
      /^trap answers-anything passed \(succeeded: all met; reward 1\): the success terms reward the shortcut/,
    );
  });

  it('a trap must earn less than the oracle on its seed', () => {
    const oracle = played({ reward: 0.8, passed: true });
    expect(belowOracleProblem(played({ reward: 0 }), oracle)).toBeUndefined();
    expect(belowOracleProblem(played({ reward: 0.8, agent: 'trap:x' }), oracle)).toMatch(
      /^trap:x earned 0.8, no less than the oracle's 0.8/,
    );
    expect(belowOracleProblem(played({ reward: 0.8 }), undefined)).toBeUndefined();
  });
});
