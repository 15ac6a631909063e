import { Body, Controller, Get, HttpCode, Param, Post, Query, StreamableFile, UseFilters } from '@nestjs/common';

import { CurrentPrincipal, Principal, Requires } from '@libs/access';
import { parseReportQuery, ReviewService } from '@libs/review-models';
import { renderReportHtml, reviewReport } from '@libs/review-views';

import { ReportPrinter } from './report-printer';
import { ReviewErrorFilter } from './review-error.filter';

/** Who the console is talking to the api as: shown at the top of every page. */
export interface ReviewSession {
  tenantId: string;
  actor: string;
  role: string;
}

/**
 * The reviewer console's JSON and its reports: reads of everything stored for the tenant, and the two writes a
 * reviewer makes, annotations of verdicts and rollout sign-offs, each recorded in the evidence trail under the
 * caller's own name and role, as is each report handed out.
 */
@Controller('v1/review')
@UseFilters(ReviewErrorFilter)
export class ReviewController {
  constructor(
    private readonly review: ReviewService,
    private readonly printer: ReportPrinter,
  ) {}

  @Get('session')
  @Requires('review:read')
  session(@CurrentPrincipal() principal: Principal): ReviewSession {
    return { tenantId: principal.tenantId, actor: principal.actor, role: principal.role };
  }

  @Get('rollouts')
  @Requires('review:read')
  rollouts(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.review.rolloutList(principal.tenantId, query);
  }

  @Get('rollouts/:id')
  @Requires('review:read')
  rollout(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.review.rollout(principal.tenantId, id);
  }

  @Get('rollouts/:id/report')
  @Requires('review:read')
  rolloutReport(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<StreamableFile> {
    return this.report(principal, 'rollout', id, query);
  }

  @Post('rollouts/:id/sign-offs')
  @Requires('review:sign-off')
  @HttpCode(201)
  signOff(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    return this.review.signOff(principal, id, body);
  }

  @Get('episodes/:id')
  @Requires('review:read')
  episode(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.review.episode(principal.tenantId, id);
  }

  @Get('episodes/:id/report')
  @Requires('review:read')
  episodeReport(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<StreamableFile> {
    return this.report(principal, 'episode', id, query);
  }

  @Post('episodes/:id/annotations')
  @Requires('review:annotate')
  @HttpCode(201)
  annotate(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    return this.review.annotate(principal, id, body);
  }

  /**
   * A report as the file `mirror report` writes: the format checked before anything is read, then the same material
   * the console shows (tenant-scoped by the service), rendered to HTML and, for a PDF, printed by Chromium.
   */
  private async report(
    principal: Principal,
    kind: 'rollout' | 'episode',
    id: string,
    query: Record<string, unknown>,
  ): Promise<StreamableFile> {
    const format = parseReportQuery(query);
    const html = renderReportHtml(await reviewReport(this.review, principal.tenantId, kind, id));
    // The id was found in the caller's tenant, so it is a uuid: safe in a header.
    const disposition = `attachment; filename="${kind}-${id}.${format}"`;
    const content = format === 'html' ? Buffer.from(html) : await this.printer.pdf(html);
    // Recorded before it is handed out: no report leaves without its entry.
    await this.review.recordReportExport(principal, kind, id, format, content);
    return new StreamableFile(content, {
      type: format === 'html' ? 'text/html; charset=utf-8' : 'application/pdf',
      disposition,
    });
  }
}
