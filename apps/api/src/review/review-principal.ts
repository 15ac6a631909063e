import type { Request } from 'express';

import type { MirrorConfig } from '@libs/config';
import type { Reviewer } from '@libs/review-models';

/**
 * Who a review request acts for: the one place the review endpoints learn the tenant and the actor. Until requests are
 * authenticated this is the process's configured tenant (as every api route takes it today) and a local reviewer;
 * the access guard replaces this function with the principal of the request's key.
 */
export const reviewPrincipal = (config: Pick<MirrorConfig, 'MIRROR_TENANT'>, _request: Request): Reviewer => ({
  tenantId: config.MIRROR_TENANT,
  actor: `local-reviewer@${config.MIRROR_TENANT}`,
});
