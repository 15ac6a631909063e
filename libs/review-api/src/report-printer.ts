import * as fs from 'node:fs';

import { ReviewError } from '@libs/review-models';
import { renderReportPdf } from '@libs/review-views';

/**
 * Prints reports to PDF for the api, a few at a time: each print is a Chromium of its own (hundreds of MB), so a
 * reviewer's burst of downloads, or anyone's, is told to come back rather than exhausting the server's memory. The
 * Chromium is `MIRROR_CHROMIUM_PATH`; a server without it says so by that name (never by the server's own path).
 */
export class ReportPrinter {
  private printing = 0;

  constructor(
    private readonly chromium: string,
    readonly maxAtOnce = 2,
  ) {}

  async pdf(html: string): Promise<Buffer> {
    if (!fs.existsSync(this.chromium)) {
      throw new ReviewError(
        'UNAVAILABLE',
        'this server has no Chromium to print PDF reports with (its operator sets MIRROR_CHROMIUM_PATH to one): ask for format=html',
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
