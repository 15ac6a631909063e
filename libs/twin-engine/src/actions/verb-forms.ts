/** `powerOff`, `power-off`, `POWER_OFF` → `['power', 'off']`; a path segment's `.json` suffix is no part of the word. */
export const wordsOf = (text: string): string[] =>
  text
    .replace(/\.[a-z0-9]+$/i, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** English verbs whose state is not the regular `-ed` form. */
const irregular: Record<string, string[]> = {
  pay: ['paid'],
  send: ['sent'],
  hold: ['held', 'on_hold'],
  freeze: ['frozen'],
  begin: ['begun'],
  run: ['running'],
  stop: ['stopped'],
  shut: ['shut'],
  undo: ['undone'],
  win: ['won'],
  lose: ['lost'],
  split: ['split'],
  set: ['set'],
};

const consonant = /[bcdfghjklmnpqrstvwxz]$/;

/**
 * The words a record's state could take after the verb was done to it: `close` → closed, `cancel` → canceled and
 * cancelled, `apply` → applied, `activate` → activated and active, `process` → processed and processing. The bare
 * verb counts too (`void` → void, `open` → open).
 */
export const statesOfVerb = (verb: string): Set<string> => {
  const forms = new Set<string>([verb, ...(irregular[verb] ?? [])]);
  if (verb.endsWith('e')) {
    forms.add(`${verb}d`);
    forms.add(`${verb.slice(0, -1)}ing`);
  } else if (/[^aeiou]y$/.test(verb)) {
    forms.add(`${verb.slice(0, -1)}ied`);
  } else {
    forms.add(`${verb}ed`);
    forms.add(`${verb}ing`);
    // Doubling depends on stress (cancelled/canceled, submitted): both spellings are harmless candidates.
    if (consonant.test(verb) && /[aeiou][bcdfgklmnprstvz]$/.test(verb) && !/[aeiou]{2}[a-z]$/.test(verb)) {
      forms.add(`${verb}${verb.slice(-1)}ed`);
    }
  }
  if (verb.endsWith('ate')) {
    forms.add(`${verb.slice(0, -3)}e`);
  }
  return forms;
};

/** A reversing verb (`unarchive`, `unlock`) names the state it undoes; `reopen` names the state it restores. */
export const reversedVerb = (verb: string): string | undefined =>
  /^un[a-z]{3,}$/.test(verb) ? verb.slice(2) : undefined;

export const restoredVerb = (verb: string): string | undefined =>
  /^re[a-z]{3,}$/.test(verb) &&
  !/^re(fund|ject|solve|turn|lease|ply|port|quest|view|move|cord|new|set|tain|voke)/.test(verb)
    ? verb.slice(2)
    : undefined;

/** A value as comparable words: `Closed`, `CLOSED`, `closed` are one state; `on-hold` and `on_hold` too. */
export const normalState = (value: string): string => wordsOf(value).join('_');
