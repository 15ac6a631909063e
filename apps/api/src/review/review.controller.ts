import { Body, Controller, Get, Header, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { DataSource } from 'typeorm';

import { MirrorSettings } from '@libs/config';
import { ReviewService } from '@libs/review-models';
import { renderReportHtml, reviewReport } from '@libs/review-views';

import { reviewPrincipal } from './review-principal';

/**
 * The reviewer console's JSON (and its reports as HTML): reads of everything stored for the tenant, and the two
 * writes a reviewer makes, annotations of verdicts and rollout sign-offs, each recorded in the evidence trail.
 */
@Controller('v1/review')
export class ReviewController {
  private readonly review: ReviewService;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: MirrorSettings,
  ) {
    this.review = new ReviewService(dataSource);
  }

  @Get('rollouts')
  rollouts(@Req() request: Request, @Query() query: Record<string, unknown>) {
    return this.review.rolloutList(reviewPrincipal(this.config, request).tenantId, query);
  }

  @Get('rollouts/:id')
  rollout(@Req() request: Request, @Param('id') id: string) {
    return this.review.rollout(reviewPrincipal(this.config, request).tenantId, id);
  }

  @Get('rollouts/:id/report.html')
  @Header('Content-Type', 'text/html; charset=utf-8')
  async rolloutReport(@Req() request: Request, @Param('id') id: string): Promise<string> {
    const tenantId = reviewPrincipal(this.config, request).tenantId;
    return renderReportHtml(await reviewReport(this.review, tenantId, 'rollout', id));
  }

  @Post('rollouts/:id/sign-offs')
  @HttpCode(201)
  signOff(@Req() request: Request, @Param('id') id: string, @Body() body: unknown) {
    return this.review.signOff(reviewPrincipal(this.config, request), id, body);
  }

  @Get('episodes/:id')
  episode(@Req() request: Request, @Param('id') id: string) {
    return this.review.episode(reviewPrincipal(this.config, request).tenantId, id);
  }

  @Get('episodes/:id/report.html')
  @Header('Content-Type', 'text/html; charset=utf-8')
  async episodeReport(@Req() request: Request, @Param('id') id: string): Promise<string> {
    const tenantId = reviewPrincipal(this.config, request).tenantId;
    return renderReportHtml(await reviewReport(this.review, tenantId, 'episode', id));
  }

  @Post('episodes/:id/annotations')
  @HttpCode(201)
  annotate(@Req() request: Request, @Param('id') id: string, @Body() body: unknown) {
    return this.review.annotate(reviewPrincipal(this.config, request), id, body);
  }
}
