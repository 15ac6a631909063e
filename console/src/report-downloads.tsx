import { useState } from 'react';

import { download, ReviewRequestError } from './review-api';

type Status = { state: 'idle' } | { state: 'preparing'; format: string } | { state: 'refused'; message: string };

/** The report of a rollout or an episode, as HTML or PDF, made by the api from what the page shows. */
export const ReportDownloads = ({ kind, id }: { kind: 'rollout' | 'episode'; id: string }) => {
  const [status, setStatus] = useState<Status>({ state: 'idle' });
  const fetchReport = (format: 'html' | 'pdf') => {
    setStatus({ state: 'preparing', format });
    download(`/v1/review/${kind}s/${encodeURIComponent(id)}/report?format=${format}`, `${kind}-${id}.${format}`).then(
      () => setStatus({ state: 'idle' }),
      (error: unknown) =>
        setStatus({
          state: 'refused',
          message:
            error instanceof ReviewRequestError ? `${error.message} (${error.status})` : 'the api could not be reached',
        }),
    );
  };
  return (
    <p className="actions report-downloads">
      {(['html', 'pdf'] as const).map((format) => (
        <button
          key={format}
          type="button"
          data-format={format}
          disabled={status.state === 'preparing'}
          onClick={() => fetchReport(format)}
        >
          Download the {format.toUpperCase()} report
        </button>
      ))}
      {status.state === 'preparing' && <span className="report-status">Preparing the {status.format} report…</span>}
      {status.state === 'refused' && (
        <span className="form-error" role="alert">
          {status.message}
        </span>
      )}
    </p>
  );
};
