import * as fs from 'node:fs';

import { ReviewError } from '@libs/review-models';

import { ReportPrinter } from './report-printer';
import { reviewStatus } from './review-error.filter';

const html = '<!doctype html><html><body><h1>Rollout report</h1></body></html>';
const chromium = '/usr/bin/chromium';

/** Real: Debian's Chromium (installed here and by CI) for the print that keeps the printer busy. Mocked: nothing. */
describe(ReportPrinter.name, () => {
  it('without a Chromium, answers 503 naming the setting that gives it one, and not the server path it tried', async () => {
    const missing = '/opt/nowhere/chromium-for-mirror';
    const failure: unknown = await new ReportPrinter(missing).pdf(html).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ReviewError);
    const { code, message } = failure as ReviewError;
    expect(reviewStatus(code)).toBe(503);
    expect(message).toMatch(/no Chromium to print PDF reports with \(its operator sets MIRROR_CHROMIUM_PATH to one\)/);
    expect(message).toMatch(/ask for format=html/);
    expect(message).not.toContain(missing);
  });

  it('prints with the Chromium it was given, and tells a print beyond its limit to come back (429)', async () => {
    expect(fs.existsSync(chromium)).toBe(true);
    const sut = new ReportPrinter(chromium, 1);
    const first = sut.pdf(html);
    const second: unknown = await sut.pdf(html).catch((error: unknown) => error);
    expect(second).toBeInstanceOf(ReviewError);
    expect(reviewStatus((second as ReviewError).code)).toBe(429);
    expect((await first).subarray(0, 5).toString()).toBe('%PDF-');
  });
});
