import { stringifyExact } from './exact-integers';

/**
 * Records never change once made (an update makes a new record), so each is serialised once and its JSON reused by
 * every response and every episode that shows it: serialising multi-kilobyte records per request was most of the
 * read path's cost.
 */
const cache = new WeakMap<object, string>();

export const recordJson = (record: object): string => {
  let json = cache.get(record);
  if (json === undefined) {
    json = stringifyExact(record);
    cache.set(record, json);
  }
  return json;
};

/** `{ "<field>": <json>, …rest }` from the JSON of the rest: splices without reserialising the record. */
export const withField = (restJson: string, field: string, json: string): string =>
  restJson === '{}' ? `{${JSON.stringify(field)}:${json}}` : `{${JSON.stringify(field)}:${json},${restJson.slice(1)}`;

/** A response body's JSON with its UTF-8 length, so the transport never walks the string to size it. */
export interface SizedJson {
  text: string;
  bytes: number;
}

const enveloped = new WeakMap<object, Map<string, SizedJson>>();

/**
 * A record inside an operation's envelope, built once per (record, envelope) and reused: the same record is read
 * far more often than it changes, and building then sizing a kilobyte string per read was a third of a GET's cost.
 */
export const envelopedJson = (record: object, restJson: string, field: string): SizedJson => {
  let byEnvelope = enveloped.get(record);
  if (!byEnvelope) {
    byEnvelope = new Map();
    enveloped.set(record, byEnvelope);
  }
  const key = `${field}\u0000${restJson}`;
  let sized = byEnvelope.get(key);
  if (!sized) {
    const text = field === '' ? recordJson(record) : withField(restJson, field, recordJson(record));
    sized = { text, bytes: Buffer.byteLength(text) };
    byEnvelope.set(key, sized);
  }
  return sized;
};

/** A bare record's JSON with its length, cached like the JSON itself. */
export const sizedRecordJson = (record: object): SizedJson => envelopedJson(record, '', '');
