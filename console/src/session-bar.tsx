import { type FormEvent, useEffect, useState } from 'react';

import { apiKey, forgetApiKey, getJson, rememberApiKey, ReviewRequestError } from './review-api';

interface ReviewSession {
  tenantId: string;
  actor: string;
  role: string;
}

type SessionState =
  | { state: 'asking' }
  | { state: 'signed'; session: ReviewSession }
  | { state: 'needs-key' }
  | { state: 'refused'; message: string };

const forgetAndReload = () => {
  forgetApiKey();
  location.reload();
};

const ForgetKey = () => (
  <button type="button" className="api-key-forget" onClick={forgetAndReload}>
    Forget API key
  </button>
);

/**
 * Where a reviewer gives the console their API key; the page reloads so every view asks again (the api judges the
 * key; an empty one is not sent at all).
 */
const ApiKeyForm = () => {
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const key = new FormData(event.currentTarget).get('key');
    if (typeof key !== 'string' || key.trim() === '') {
      setProblem('enter an API key (mk_…) first');
      return;
    }
    rememberApiKey(key);
    location.reload();
  };
  return (
    <form className="api-key" onSubmit={submit}>
      <input name="key" type="password" placeholder="API key (mk_…)" aria-label="API key" autoComplete="off" />
      <button type="submit">Use key</button>
      {problem && (
        <span className="form-error" role="alert">
          {' '}
          {problem}
        </span>
      )}
    </form>
  );
};

/**
 * Who the console acts as, asked of the api: the key's actor and role, or `mirror up`'s local user (no key needed);
 * the key form when the api wants one, and the api's reason when it refuses the key given.
 */
export const SessionBar = () => {
  const [session, setSession] = useState<SessionState>({ state: 'asking' });
  useEffect(() => {
    getJson<ReviewSession>('/v1/review/session').then(
      (value) => setSession({ state: 'signed', session: value }),
      (error: unknown) =>
        setSession(
          error instanceof ReviewRequestError && error.status === 401 && apiKey() === null
            ? { state: 'needs-key' }
            : { state: 'refused', message: error instanceof Error ? error.message : String(error) },
        ),
    );
  }, []);
  switch (session.state) {
    case 'asking':
      return null;
    case 'needs-key':
      return <ApiKeyForm />;
    case 'refused':
      return (
        <span className="session refused">
          {session.message} {apiKey() !== null && <ForgetKey />}
        </span>
      );
    case 'signed':
      return (
        <span className="session">
          {apiKey() === null ? 'Local mode: ' : 'Signed in as '}
          <strong>{session.session.actor}</strong> ({session.session.role}) · tenant {session.session.tenantId}{' '}
          {apiKey() !== null && <ForgetKey />}
        </span>
      );
  }
};
