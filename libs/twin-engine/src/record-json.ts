/**
 * Records never change once made (an update makes a new record), so each is serialised once and its JSON reused by
 * every response and every episode that shows it: serialising multi-kilobyte records per request was most of the
 * read path's cost.
 */
const cache = new WeakMap<object, string>();

export const recordJson = (record: object): string => {
  let json = cache.get(record);
  if (json === undefined) {
    json = JSON.stringify(record);
    cache.set(record, json);
  }
  return json;
};

/** `{ "<field>": <json>, …rest }` from the JSON of the rest: splices without reserialising the record. */
export const withField = (restJson: string, field: string, json: string): string =>
  restJson === '{}' ? `{${JSON.stringify(field)}:${json}}` : `{${JSON.stringify(field)}:${json},${restJson.slice(1)}`;
