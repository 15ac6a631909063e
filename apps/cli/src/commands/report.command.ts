import * as fs from 'node:fs';

import { Command } from 'commander';

import { loadConfig } from '@libs/config';
import { stderrLog } from '@libs/embedded-services';
import { commandLineActor } from '@libs/evidence-trail';
import { ReviewError, ReviewService } from '@libs/review-models';
import { renderReportHtml, renderReportPdf, reviewReport } from '@libs/review-views';
import { UsageError } from '@cli/cli-output';
import { withDatabase } from '@cli/database-session';
import { builtInPacks } from '@twins/index';

/**
 * `mirror report rollout|episode <id>`: the review's report as one self-contained HTML file (the console's own
 * components rendered here, inline CSS, SVG charts) or as that file printed to PDF by Chromium.
 */
export const reportCommand = (): Command =>
  new Command('report')
    .description('write a review report of a rollout or an episode, as self-contained HTML or PDF')
    .argument('<kind>', 'rollout or episode')
    .argument('<id>', 'its id')
    .option('-f, --format <format>', 'html or pdf', 'html')
    .requiredOption('-o, --output <file>', 'the file to write')
    .option('--chromium <path>', 'the Chromium that prints the PDF (default: MIRROR_CHROMIUM_PATH)')
    .action(async (kind: string, id: string, options: { format: string; output: string; chromium?: string }) => {
      if (kind !== 'rollout' && kind !== 'episode') {
        throw new UsageError(`no report of "${kind}"; kinds: rollout, episode`);
      }
      if (options.format !== 'html' && options.format !== 'pdf') {
        throw new UsageError(`--format must be html or pdf, not "${options.format}"`);
      }
      const chromium = options.chromium ?? loadConfig().MIRROR_CHROMIUM_PATH;
      if (options.format === 'pdf' && !fs.existsSync(chromium)) {
        throw new UsageError(
          `no Chromium at ${chromium} to print the PDF: install Debian's chromium, name one with --chromium or MIRROR_CHROMIUM_PATH, or ask for --format html`,
        );
      }
      const format = options.format;
      const content = await withDatabase(stderrLog, async ({ config, dataSource }) => {
        const review = new ReviewService(dataSource, builtInPacks);
        let report;
        try {
          report = await reviewReport(review, config.MIRROR_TENANT, kind, id);
        } catch (error) {
          if (error instanceof ReviewError) {
            throw new UsageError(error.message);
          }
          throw error;
        }
        const html = renderReportHtml(report);
        const rendered = format === 'html' ? html : await renderReportPdf(html, chromium);
        // Recorded before the file is written: no report leaves without its entry.
        await review.recordReportExport(
          { tenantId: config.MIRROR_TENANT, actor: commandLineActor(), role: 'reviewer' },
          kind,
          id,
          format,
          rendered,
        );
        return rendered;
      });
      // Written whole or not at all: a reviewer never receives half a report.
      const partial = `${options.output}.${process.pid}.partial`;
      fs.writeFileSync(partial, content);
      fs.renameSync(partial, options.output);
      process.stdout.write(`${options.output}: ${kind} ${id} report, ${options.format}, ${content.length} bytes\n`);
    });
