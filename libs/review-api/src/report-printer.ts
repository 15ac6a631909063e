import * as fs from 'node:fs';

import { ReviewError } from '@libs/review-models';
import { defaultChromium, renderReportPdf } from '@libs/review-views';

/**
 * Prints reports to PDF for the api, a few at a time: each print is a Chromium of its own (hundreds of MB), so a
 * reviewer's burst of downloads, or anyone's, is told to come back rather than exhausting the server's memory.
 */
export class ReportPrinter {
  private printing = 0;

  constructor(
    private readonly chromium = defaultChromium,
    readonly maxAtOnce = 2,
  ) {}

  async pdf(html: string): Promise<Buffer> {
    if (!fs.existsSync(this.chromium)) {
      throw new ReviewError(
        'UNAVAILABLE',
        'this server has no Chromium to print PDF reports with: ask for format=html',
      );
    }
    if (this.printing >= this.maxAtOnce) {
      throw new ReviewError('BUSY', `${this.maxAtOnce} reports are being printed: try again in a few seconds`);
    }
    this.printing += 1;
    try {
      return await renderReportPdf(html, this.chromium);
    } finally {
      this.printing -= 1;
    }
  }
}
