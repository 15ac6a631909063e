import type { LiveEpisodeRow, TrajectoryStepRow } from '@libs/persistence';

import type { EpisodeResult } from './episode-result';
import { trajectoryView } from './trajectory-view';

const step = (index: number, seqBefore: number, seqAfter: number): TrajectoryStepRow => ({
  index,
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
  wallMs: 1,
  businessTime: '2026-09-14T09:00:00.000Z',
  call: { id: `c${index}`, name: 'tool', arguments: {} },
  observation: { is_error: false, structured: {}, text: '' },
  counted: true,
  seqBefore,
  seqAfter,
});

const row = (result: EpisodeResult | null): LiveEpisodeRow<EpisodeResult> => ({
  id: 'e',
  environment: 'env',
  task: 's@1',
  groupId: null,
  tokenHash: Buffer.alloc(32),
  maxSteps: 10,
  status: result ? 'ended' : 'running',
  steps: 3,
  truncated: false,
  createdAt: '',
  expiresAt: '',
  endedAt: null,
  result,
});

describe('trajectory view', () => {
  it('credits each process reward to the last call that began before its event, and the reward to the final step', () => {
    const result: EpisodeResult = {
      cause: 'finished',
      reward: 0.9,
      passed: true,
      status: 'succeeded',
      reason: 'done',
      violations: [],
      processRewards: [
        { seq: 3, reward: 0.1, why: 'setup-time milestone' },
        { seq: 12, reward: 0.1, why: 'milestone during the second call' },
        { seq: 20, reward: -0.5, why: 'a reply after the wait' },
        { seq: 30, reward: 0.8, why: 'task succeeded' },
      ],
    };
    const view = trajectoryView(row(result), [step(0, 10, 11), step(1, 11, 13), step(2, 13, 25)], []);
    expect(view.steps.map((s) => [s.process_reward, s.process_reasons.length])).toEqual([
      [0.1, 1],
      [0.1, 1],
      [0.3, 2],
    ]);
    expect(view.steps.map((s) => ('reward' in s ? s.reward : undefined))).toEqual([undefined, undefined, 0.9]);
    expect(view.reward).toBe(0.9);
  });

  it('shows no reward and no events while the episode runs', () => {
    const view = trajectoryView(row(null), [step(0, 1, 2)], undefined);
    expect(view.events).toBeNull();
    expect(view.reward).toBeNull();
    expect('reward' in view.steps[0]).toBe(false);
  });
});
