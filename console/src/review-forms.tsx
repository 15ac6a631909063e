import { type FormEvent, useState } from 'react';

import type { RolloutClosure } from '@libs/review-models';

import { postJson, ReviewRequestError } from './review-api';

type Status = { state: 'idle' } | { state: 'saving' } | { state: 'saved' } | { state: 'refused'; message: string };

/** Posts the form's fields as JSON; shows the api's refusal (which names the field) or that it was saved. */
const useSubmit = (path: string, fields: readonly string[], saved: () => void) => {
  const [status, setStatus] = useState<Status>({ state: 'idle' });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const body = Object.fromEntries(fields.map((f) => [f, data.get(f) ?? undefined]));
    setStatus({ state: 'saving' });
    postJson(path, body).then(
      () => {
        setStatus({ state: 'saved' });
        form.reset();
        saved();
      },
      (error: unknown) =>
        setStatus({
          state: 'refused',
          message:
            error instanceof ReviewRequestError ? `${error.message} (${error.status})` : 'the api could not be reached',
        }),
    );
  };
  return { status, submit };
};

const StatusLine = ({ status }: { status: Status }) =>
  status.state === 'refused' ? (
    <p className="form-error" role="alert">
      {status.message}
    </p>
  ) : status.state === 'saved' ? (
    <p className="form-saved">Saved and recorded in the evidence trail.</p>
  ) : null;

export const AnnotationForm = ({ episodeId, rule, saved }: { episodeId: string; rule: string; saved: () => void }) => {
  const { status, submit } = useSubmit(
    `/v1/review/episodes/${encodeURIComponent(episodeId)}/annotations`,
    ['rule', 'stance', 'comment'],
    saved,
  );
  return (
    <form className="review-form annotation-form" data-rule={rule} onSubmit={submit}>
      <input type="hidden" name="rule" value={rule} />
      <label>
        stance
        <select name="stance" defaultValue="dispute">
          <option value="agree">agree</option>
          <option value="dispute">dispute</option>
        </select>
      </label>
      <label>
        comment
        <textarea name="comment" placeholder="why you agree or dispute this verdict" />
      </label>
      <button type="submit" disabled={status.state === 'saving'}>
        Annotate
      </button>
      <StatusLine status={status} />
    </form>
  );
};

/** Sends the close the page showed: the api refuses the sign-off if the rollout's record is another by now. */
export const SignOffForm = ({
  rolloutId,
  closure,
  saved,
}: {
  rolloutId: string;
  closure: RolloutClosure | null;
  saved: () => void;
}) => {
  const { status, submit } = useSubmit(
    `/v1/review/rollouts/${encodeURIComponent(rolloutId)}/sign-offs`,
    ['decision', 'comment', 'closedEntryHash', 'merkleRoot'],
    saved,
  );
  return (
    <form className="review-form sign-off-form" onSubmit={submit}>
      <input type="hidden" name="closedEntryHash" value={closure?.entryHash ?? ''} />
      <input type="hidden" name="merkleRoot" value={closure?.merkleRoot ?? ''} />
      <label>
        decision
        <select name="decision" defaultValue="">
          <option value="">choose…</option>
          <option value="approved">approve</option>
          <option value="rejected">reject</option>
        </select>
      </label>
      <label>
        comment
        <textarea name="comment" placeholder="required when rejecting" />
      </label>
      <button type="submit" disabled={status.state === 'saving'}>
        Sign off
      </button>
      <StatusLine status={status} />
    </form>
  );
};
