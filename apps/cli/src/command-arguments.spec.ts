import { Command } from 'commander';

import { concurrencyOption, maxConcurrency } from './command-arguments';

describe(concurrencyOption.name, () => {
  const parse = (...args: string[]) => {
    let error = '';
    const sut = new Command('run')
      .exitOverride()
      .configureOutput({ writeErr: (text) => (error += text) })
      .addOption(concurrencyOption('episodes', 2))
      .action(() => undefined);
    try {
      sut.parse(args, { from: 'user' });
      return { value: sut.opts<{ concurrency: number }>().concurrency };
    } catch {
      return { error };
    }
  };

  it('takes 1 to 64 episodes at once, and its default when not given', () => {
    expect(maxConcurrency).toBe(64);
    expect(parse()).toEqual({ value: 2 });
    expect(parse('--concurrency', '1')).toEqual({ value: 1 });
    expect(parse('-c', '64')).toEqual({ value: 64 });
  });

  it.each(['0', '65', '2.5', 'many', '-3'])('refuses %s with an error naming the option and its bounds', (given) => {
    expect(parse('--concurrency', given).error).toContain('--concurrency must be an integer from 1 to 64');
  });
});
