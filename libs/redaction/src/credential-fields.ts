import type { Finding } from './redaction-kinds';

/** The last word of a name that holds a credential, or the last two (`api_key`, `client_secret`). */
const credentialWords = new Set([
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'token',
  'credential',
  'credentials',
  'apikey',
  'authorization',
  'cookie',
]);
const credentialPairs = new Set([
  'api key',
  'private key',
  'access key',
  'secret key',
  'signing key',
  'session key',
  'auth key',
  'encryption key',
]);
/** Words that make such a name something else: a page token is a cursor, a token type a label, a password hint text. */
const notCredentialWords = new Set([
  'page',
  'next',
  'prev',
  'previous',
  'cursor',
  'sync',
  'type',
  'expires',
  'expiry',
  'expiration',
  'count',
  'id',
  'url',
  'uri',
  'hint',
  'name',
  'length',
  'limit',
  'policy',
  'reset',
  'required',
  'set',
  'format',
  'hash',
]);

const wordsOf = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** A field or parameter name that says its value is a credential (`password`, `apiKey`, `X-Auth-Token`). */
export const isCredentialName = (name: string): boolean => {
  const words = wordsOf(name);
  if (words.length === 0 || words.some((word) => notCredentialWords.has(word))) {
    return false;
  }
  const last = words[words.length - 1];
  return credentialWords.has(last) || (words.length >= 2 && credentialPairs.has(`${words[words.length - 2]} ${last}`));
};

/**
 * A value that stands for a credential without being one: empty, a template (`<token>`, `{{password}}`, `${API_KEY}`),
 * one character repeated (`xxxx`, `****`), a marker, or a word saying so (`changeme`, `your-api-key`, `example`).
 */
export const isPlaceholder = (value: string): boolean => {
  const text = value.trim();
  return (
    text.length < 4 ||
    /^(.)\1*$/.test(text) ||
    /^(<[^>]*>|\{\{.*\}\}|\$\{.*\}|%[\w-]+%|\$[A-Z_][A-Z0-9_]*|\[redacted(:[a-z]+)?\])$/i.test(text) ||
    /example|placeholder|changeme|change[_ -]me|your[_ -]|dummy|sample|redacted|x{4,}|\*{3,}/i.test(text) ||
    // A word of the prose around a credential (`Basic authentication.`, `a Bearer Authorization header`).
    /^(string|password|secret|token|null|none|undefined|true|false|bearer|basic|required|optional|auth|authentication|authori[sz]ation|header|scheme)[.,;:!?)]*$/i.test(
      text,
    )
  );
};

// `name = value`, `name: value`, `"name": "value"`, `name=value&…` in free text (a log line, a pasted config).
// A template value is taken whole (`<your password>`, `${API_KEY}`), so it reads as the placeholder it is.
const assignment =
  /([A-Za-z_][\w.-]{1,60})["']?\s*[:=]\s*["']?(<[^>\n]*>|\{\{[^}\n]*\}\}|\$\{[^}\n]*\}|[^\s"',;&}]{4,})/g;
const bearer = /\b(Bearer|Basic)\s+([A-Za-z0-9._~+/=-]{12,})/g;

/** Credentials written out in text: a credential-named assignment with a real-looking value, or an HTTP credential. */
export const findCredentialAssignments = (text: string): Finding[] => {
  const found: Finding[] = [];
  if (/[:=]/.test(text)) {
    // Matched one at a time: an assignment that is not a credential's gives its value back to the search, so
    // `order: secret=…` still finds the secret its value holds.
    const search = new RegExp(assignment.source, 'g');
    for (let m = search.exec(text); m; m = search.exec(text)) {
      const start = m.index + m[0].length - m[2].length;
      if (isCredentialName(m[1]) && !isPlaceholder(m[2])) {
        found.push({ kind: 'credential', start, end: start + m[2].length, detector: 'credential-name' });
      } else {
        search.lastIndex = start;
      }
    }
  }
  for (const m of /Bearer|Basic/.test(text) ? text.matchAll(bearer) : []) {
    if (!isPlaceholder(m[2])) {
      const start = m.index + m[0].length - m[2].length;
      found.push({ kind: 'credential', start, end: start + m[2].length, detector: 'http-credential' });
    }
  }
  return found;
};
