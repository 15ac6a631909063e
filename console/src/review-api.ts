/** The api's answer to a refused request: `{ statusCode, code, message, field? }`. */
export class ReviewRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/**
 * The reviewer's API key, kept for this browser tab only (sessionStorage: gone when the tab closes, never sent to
 * another origin). Every request carries it; the api takes the tenant and the role from it alone.
 */
const keyStorage = 'mirror-api-key';
export const apiKey = (): string | null => sessionStorage.getItem(keyStorage);
export const rememberApiKey = (key: string): void => sessionStorage.setItem(keyStorage, key.trim());
export const forgetApiKey = (): void => sessionStorage.removeItem(keyStorage);
const authorization = (): Record<string, string> => {
  const key = apiKey();
  return key ? { Authorization: `Bearer ${key}` } : {};
};

const answer = async <T>(response: Response): Promise<T> => {
  const body = (await response.json().catch(() => undefined)) as { message?: unknown; field?: unknown } | undefined;
  if (!response.ok) {
    const said = body?.message;
    const message = Array.isArray(said)
      ? said.map(String).join('; ')
      : typeof said === 'string'
        ? said
        : response.statusText;
    const hint = response.status === 401 ? ' (enter a reviewer’s API key at the top of the page)' : '';
    throw new ReviewRequestError(
      response.status,
      `${message}${hint}`,
      typeof body?.field === 'string' ? body.field : undefined,
    );
  }
  return body as T;
};

export const getJson = async <T>(path: string): Promise<T> =>
  answer<T>(await fetch(path, { headers: { Accept: 'application/json', ...authorization() } }));

export const postJson = async <T>(path: string, body: unknown): Promise<T> =>
  answer<T>(
    await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...authorization() },
      body: JSON.stringify(body),
    }),
  );

/**
 * Saves a file the api makes (a report) under `filename`: fetched with the key like every request (a plain link
 * would carry none), then handed to the browser as a download. A refusal is thrown with the api's message.
 */
export const download = async (path: string, filename: string): Promise<void> => {
  const response = await fetch(path, { headers: authorization() });
  if (!response.ok) {
    await answer<never>(response);
  }
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = filename;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The click has started the download from the blob; the URL is not needed after this turn.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
};
