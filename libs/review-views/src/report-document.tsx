import { renderToStaticMarkup } from 'react-dom/server';

import type { EpisodeView, RolloutView } from '@libs/review-models';

import { EpisodePage } from './episode-page';
import { instant } from './format';
import { reviewStyles } from './review-styles';
import { RolloutPage } from './rollout-page';

export type ReviewReport =
  | { kind: 'rollout'; rollout: RolloutView; episodes: readonly EpisodeView[]; generatedAt: string }
  | { kind: 'episode'; episode: EpisodeView; generatedAt: string };

const ReportBody = ({ report }: { report: ReviewReport }) => (
  <div className="report">
    <p className="note">
      Mirror review report · generated {instant(report.generatedAt)} · every figure below is read from the stored
      trials, grades and event logs; the evidence trail (<code>mirror audit export</code>) proves them.
    </p>
    {report.kind === 'rollout' ? (
      <>
        <RolloutPage view={report.rollout} />
        {report.episodes.map((episode) => (
          <section key={episode.id} className="report-appendix">
            <EpisodePage view={episode} />
          </section>
        ))}
      </>
    ) : (
      <EpisodePage view={report.episode} />
    )}
  </div>
);

/** One self-contained HTML file: the same components as the console, inline CSS, SVG charts, no script, no request. */
export const renderReportHtml = (report: ReviewReport): string => {
  const title =
    report.kind === 'rollout'
      ? `Rollout ${report.rollout.id} · ${report.rollout.bundle}`
      : `Episode ${report.episode.id} · ${report.episode.scenario ?? ''}`;
  const body = renderToStaticMarkup(<ReportBody report={report} />);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${reviewStyles}</style>
</head>
<body>${body}</body>
</html>
`;
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
