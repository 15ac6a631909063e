import { EpisodeRequestError } from '@libs/agent-tools';

import { bodyOf, episodeRequest, groupRequest, jsonBody, taskOf } from './request-bodies';

const refusal = (work: () => unknown): EpisodeRequestError => {
  try {
    work();
  } catch (error) {
    return error as EpisodeRequestError;
  }
  throw new Error('not refused');
};

describe('episode API bodies', () => {
  it('refuses a body that is not JSON, or empty, with 400 body_invalid', () => {
    expect(refusal(() => jsonBody('{"environment": '))).toMatchObject({ code: 'body_invalid', status: 400 });
    expect(refusal(() => jsonBody(''))).toMatchObject({
      code: 'body_invalid',
      message: expect.stringMatching(/empty/),
    });
  });

  it('names the field a body breaks', () => {
    expect(refusal(() => bodyOf(episodeRequest, '{"environment": 5, "task": "a@1"}')).message).toMatch(
      /^environment: /,
    );
    expect(
      refusal(() => bodyOf(episodeRequest, '{"environment": "e", "task": "a@1", "max_steps": 0}')).message,
    ).toMatch(/^max_steps: /);
    expect(refusal(() => bodyOf(episodeRequest, '{"environment": "e", "task": "a@1", "extra": 1}')).message).toMatch(
      /extra/,
    );
    expect(refusal(() => bodyOf(episodeRequest, '{"environment": "e", "task": "a@1", "seed": 1}')).message).toMatch(
      /^task: .*not both/,
    );
    expect(refusal(() => bodyOf(groupRequest, '{"environment": "e", "task": "a@1"}')).message).toMatch(/^n: /);
  });

  it('takes the task as "task" or as "scenario" and "seed"', () => {
    expect(taskOf(bodyOf(episodeRequest, '{"environment": "e", "task": "a@1"}'))).toBe('a@1');
    expect(taskOf(bodyOf(episodeRequest, '{"environment": "e", "scenario": "a", "seed": 2}'))).toBe('a@2');
    expect(bodyOf(groupRequest, '{"environment": "e", "task": "a@1", "n": 4}').n).toBe(4);
  });
});
