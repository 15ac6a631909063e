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

const answer = async <T>(response: Response): Promise<T> => {
  const body = (await response.json().catch(() => undefined)) as { message?: unknown; field?: unknown } | undefined;
  if (!response.ok) {
    const said = body?.message;
    const message = Array.isArray(said)
      ? said.map(String).join('; ')
      : typeof said === 'string'
        ? said
        : response.statusText;
    throw new ReviewRequestError(response.status, message, typeof body?.field === 'string' ? body.field : undefined);
  }
  return body as T;
};

export const getJson = async <T>(path: string): Promise<T> =>
  answer<T>(await fetch(path, { headers: { Accept: 'application/json' } }));

export const postJson = async <T>(path: string, body: unknown): Promise<T> =>
  answer<T>(
    await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    }),
  );
