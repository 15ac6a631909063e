import type { FormEvent } from 'react';

import { apiKey, forgetApiKey, rememberApiKey } from './review-api';

/** Where a reviewer gives the console their API key (or drops it); the page reloads so every view asks again. */
export const ApiKeyForm = () => {
  if (apiKey() !== null) {
    return (
      <button
        type="button"
        className="api-key-forget"
        onClick={() => {
          forgetApiKey();
          location.reload();
        }}
      >
        Forget API key
      </button>
    );
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const key = new FormData(event.currentTarget).get('key');
    if (typeof key === 'string' && key.trim() !== '') {
      rememberApiKey(key);
      location.reload();
    }
  };
  return (
    <form className="api-key" onSubmit={submit}>
      <input name="key" type="password" placeholder="API key (mk_…)" aria-label="API key" autoComplete="off" />
      <button type="submit">Use key</button>
    </form>
  );
};
