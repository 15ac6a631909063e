import type { ReviewService } from '@libs/review-models';

import type { ReviewReport } from './report-document';

/** A rollout report carries the episodes of its failed trials as appendices, at most this many. */
export const reportedEpisodes = 10;

/** What a report shows, read through the review service (so a report never shows what the console would not). */
export const reviewReport = async (
  review: ReviewService,
  tenantId: string,
  kind: 'rollout' | 'episode',
  id: string,
  generatedAt = new Date().toISOString(),
): Promise<ReviewReport> => {
  if (kind === 'episode') {
    return { kind, episode: await review.episode(tenantId, id), generatedAt };
  }
  const rollout = await review.rollout(tenantId, id);
  const failed = rollout.trialRows
    .filter((t) => t.episodeId !== null && (t.violations.length > 0 || t.passed === false))
    .slice(0, reportedEpisodes);
  const episodes = [];
  for (const trial of failed) {
    episodes.push(await review.episode(tenantId, trial.episodeId!));
  }
  return { kind, rollout, episodes, generatedAt };
};
