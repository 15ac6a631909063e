import { progressBar, progressLine } from './progress-bar';

describe(progressLine.name, () => {
  it('draws trials done of all, running, passed and infrastructure errors', () => {
    expect(
      progressLine({ total: 8, done: 2, running: 2, passed: 1, infrastructureErrors: 0, finished: false }, 65_000, 8),
    ).toBe('[##------] 2/8 trials · 2 running · 1 passed · 1:05');
    expect(
      progressLine({ total: 4, done: 4, running: 0, passed: 3, infrastructureErrors: 1, finished: true }, 1_000, 4),
    ).toBe('[####] 4/4 trials · 0 running · 3 passed · 1 infrastructure error · 0:01');
  });

  it('redraws in place only when the line changes, and ends with a newline', () => {
    const written: string[] = [];
    const stream = { columns: 80, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream;
    const sut = progressBar(stream, () => 0);
    const progress = { total: 2, done: 1, running: 1, passed: 1, infrastructureErrors: 0, finished: false };
    sut.update(progress);
    sut.update(progress);
    sut.end();
    expect(written).toEqual(['\r\x1b[2K[#####-----] 1/2 trials · 1 running · 1 passed · 0:00', '\n']);
  });
});
