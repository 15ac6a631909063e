import { Body, Controller, Get, Header, HttpCode, Param, Post, Query } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { CurrentPrincipal, Principal, Requires } from '@libs/access';
import { ReviewService } from '@libs/review-models';
import { renderReportHtml, reviewReport } from '@libs/review-views';

/**
 * The reviewer console's JSON (and its reports as HTML): reads of everything stored for the tenant, and the two
 * writes a reviewer makes, annotations of verdicts and rollout sign-offs, each recorded in the evidence trail.
 */
@Controller('v1/review')
export class ReviewController {
  private readonly review: ReviewService;

  constructor(dataSource: DataSource) {
    this.review = new ReviewService(dataSource);
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

  @Get('rollouts/:id/report.html')
  @Requires('review:read')
  @Header('Content-Type', 'text/html; charset=utf-8')
  async rolloutReport(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<string> {
    return renderReportHtml(await reviewReport(this.review, principal.tenantId, 'rollout', id));
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

  @Get('episodes/:id/report.html')
  @Requires('review:read')
  @Header('Content-Type', 'text/html; charset=utf-8')
  async episodeReport(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<string> {
    return renderReportHtml(await reviewReport(this.review, principal.tenantId, 'episode', id));
  }

  @Post('episodes/:id/annotations')
  @Requires('review:annotate')
  @HttpCode(201)
  annotate(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    return this.review.annotate(principal, id, body);
  }
}
