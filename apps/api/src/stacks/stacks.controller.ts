import { BadRequestException, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import * as express from 'express';
import type { Request, Response } from 'express';

import { CurrentPrincipal, Principal, Requires } from '@libs/access';
import { bundleLimits } from '@libs/stack-ingestion';

import { StacksService } from './stacks.service';

/** Bundles arrive as raw bytes of any type; the ingester decides what they are. Over the limit is a 413. */
const bundleParser = express.raw({ type: () => true, limit: bundleLimits.maxTotalBytes });

/** The request's body, read only now: after the access guard, never for a caller who may not ingest. */
const readBundle = (request: Request, response: Response): Promise<unknown> =>
  new Promise((resolve, reject) =>
    bundleParser(request, response, (error?: unknown) =>
      // body-parser's errors are Errors with an HTTP status (413, 400): the exception filter answers them.
      error ? reject(error instanceof Error ? error : new Error('the body could not be read')) : resolve(request.body),
    ),
  );

const defaultFileName = (contentType: string | undefined): string => {
  if (/json/.test(contentType ?? '')) {
    return 'openapi.json';
  }
  if (/yaml|yml/.test(contentType ?? '')) {
    return 'openapi.yaml';
  }
  return 'bundle';
};

@Controller('v1/stacks')
export class StacksController {
  constructor(private readonly stacks: StacksService) {}

  /**
   * The body is the bundle itself: a .zip or .tar(.gz) of a bundle folder, or one OpenAPI/Swagger document in JSON or
   * YAML. `?filename=` names a single document (its extension decides the parser) and the stack; without it the
   * stack is named by the bundle's mirror.yaml or the spec's info.title.
   */
  @Post()
  @Requires('stacks:ingest')
  async ingest(
    @CurrentPrincipal() principal: Principal,
    @Req() request: Request,
    @Res() response: Response,
    @Query('filename') filename?: string,
  ): Promise<void> {
    if (filename !== undefined && !/^[\w.-]{1,128}$/.test(filename)) {
      throw new BadRequestException('filename may only hold letters, digits, ".", "-" and "_"');
    }
    const body = await readBundle(request, response);
    if (!Buffer.isBuffer(body) || body.length === 0) {
      throw new BadRequestException('empty body: send a bundle archive or an OpenAPI document');
    }
    const outcome = await this.stacks.ingest(
      principal,
      filename,
      defaultFileName(request.headers['content-type']),
      body,
    );
    response.status(outcome.created ? 201 : 200).json({ ...outcome.summary, stored: outcome.created });
  }

  @Get()
  @Requires('stacks:read')
  list(@CurrentPrincipal() principal: Principal) {
    return this.stacks.list(principal.tenantId);
  }

  @Get(':id')
  @Requires('stacks:read')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.stacks.latest(principal.tenantId, id);
  }
}
