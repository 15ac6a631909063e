import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { ReviewService } from '@libs/review-models';
import { builtInPacks } from '@twins/index';

import { ReportPrinter } from './report-printer';
import { ReviewController } from './review.controller';

/**
 * The review routes, for any app that serves them (the api; `mirror up` in local mode). The app provides the access
 * guard (every route declares its permission) and calls `mountReviewHttp` for the body reader and the console.
 */
@Module({})
export class ReviewApiModule {
  static forRoot(dataSource: DataSource, printer: ReportPrinter): DynamicModule {
    return {
      module: ReviewApiModule,
      controllers: [ReviewController],
      providers: [
        { provide: ReviewService, useValue: new ReviewService(dataSource, builtInPacks) },
        { provide: ReportPrinter, useValue: printer },
      ],
    };
  }
}
