import { EpisodePage } from '@review-views/episode-page';
import { RolloutPage } from '@review-views/rollout-page';

import type { EpisodeView, RolloutView } from '@libs/review-models';

import { links } from './hash-route';
import { ReportDownloads } from './report-downloads';
import { AnnotationForm, SignOffForm } from './review-forms';
import { useResource } from './use-resource';

export const RolloutScreen = ({ id }: { id: string }) => {
  const rollout = useResource<RolloutView>(`/v1/review/rollouts/${encodeURIComponent(id)}`);
  if (rollout.state === 'loading') {
    return <p>Loading…</p>;
  }
  if (rollout.state === 'failed') {
    return <p className="page-error">{rollout.message}</p>;
  }
  return (
    <>
      <ReportDownloads kind="rollout" id={id} />
      <RolloutPage
        view={rollout.value}
        links={links}
        signOffForm={<SignOffForm rolloutId={id} closure={rollout.value.closure} saved={rollout.reload} />}
      />
    </>
  );
};

export const EpisodeScreen = ({ id }: { id: string }) => {
  const episode = useResource<EpisodeView>(`/v1/review/episodes/${encodeURIComponent(id)}`);
  if (episode.state === 'loading') {
    return <p>Loading…</p>;
  }
  if (episode.state === 'failed') {
    return <p className="page-error">{episode.message}</p>;
  }
  return (
    <>
      <ReportDownloads kind="episode" id={id} />
      <EpisodePage
        view={episode.value}
        links={links}
        annotationForm={(verdict) => <AnnotationForm episodeId={id} rule={verdict.rule} saved={episode.reload} />}
      />
    </>
  );
};
