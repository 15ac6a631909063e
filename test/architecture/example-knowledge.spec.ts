import * as fs from 'node:fs';
import * as path from 'node:path';

import * as yaml from 'yaml';

/**
 * Generic code knows no example. Everything an example bundle names that no other client would (its company, mail
 * domains, people, channels, cost centres, scenario and rule ids, approval thresholds, and its prose) is read from
 * `examples/` itself, so a new example is covered without touching this test, and then looked for in the non-test
 * source of libs/, apps/ and twins/.
 */
const root = path.resolve(__dirname, '..', '..');

/** Terms an example uses that are generic in any company, each with why code may name it. */
const allowed: Record<string, string> = {
  // Slack creates both in every workspace; an example's background chatter goes there like any company's.
  general: 'a channel every Slack workspace has',
  random: 'a channel every Slack workspace has',
  // Public webmail providers: an example forbids mailing terms there, and any client's policy would name the same.
  'gmail.com': 'a public webmail provider, not a client domain',
  'googlemail.com': 'a public webmail provider, not a client domain',
  'outlook.com': 'a public webmail provider, not a client domain',
  'hotmail.com': 'a public webmail provider, not a client domain',
  'yahoo.com': 'a public webmail provider, not a client domain',
  'proton.me': 'a public webmail provider, not a client domain',
  'icloud.com': 'a public webmail provider, not a client domain',
  // Reserved for documentation (RFC 2606): vendors' specs use them in examples, as do packs' specs.
  'example.com': 'a domain reserved for documentation',
  'example.org': 'a domain reserved for documentation',
  'example.net': 'a domain reserved for documentation',
};

const walk = (folder: string, keep: (file: string) => boolean): string[] =>
  fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      return entry.name === 'node_modules' ? [] : walk(full, keep);
    }
    return keep(full) ? [full] : [];
  });

type Term = { term: string; kind: string; from: string };

const strings = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(strings)
      : value && typeof value === 'object'
        ? Object.values(value).flatMap(strings)
        : [];

/** Values under a key anywhere in a document, e.g. every `freeze_budget`. */
const valuesOf = (value: unknown, key: string): unknown[] =>
  Array.isArray(value)
    ? value.flatMap((item) => valuesOf(item, key))
    : value && typeof value === 'object'
      ? Object.entries(value as Record<string, unknown>).flatMap(([k, v]): unknown[] => [
          ...(k === key ? [v] : []),
          ...valuesOf(v, key),
        ])
      : [];

const exampleFiles = walk(path.join(root, 'examples'), () => true);
const relative = (file: string): string => path.relative(root, file);

/** What the examples know, by kind. */
const exampleTerms = (): Term[] => {
  const terms: Term[] = [];
  const add = (kind: string, from: string, ...found: unknown[]) => {
    for (const term of found.flatMap(strings)) {
      if (term.trim().length >= 3) {
        terms.push({ term: term.trim(), kind, from: relative(from) });
      }
    }
  };
  for (const file of exampleFiles) {
    const text = fs.readFileSync(file, 'utf8');
    // Mail addresses and domains of any file: the company's, its suppliers', its ERP host.
    add('mail address', file, ...(text.match(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g) ?? []));
    add('domain', file, ...(text.match(/\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(example|se|de|co\.uk|fr|com|me)\b/g) ?? []));
    if (/\.ya?ml$/.test(file)) {
      const document = yaml.parse(text) as Record<string, unknown>;
      const company = document.company as Record<string, unknown> | undefined;
      if (company) {
        add('company name', file, company.name);
        add('cost centre', file, valuesOf(company, 'cost_centre'));
        add('person', file, ...((company.people as { name?: string }[] | undefined) ?? []).map((p) => p.name));
        add(
          'person',
          file,
          valuesOf(company.departments, 'head').flatMap((h) => (h as { name?: string }).name ?? []),
        );
        add(
          'channel',
          file,
          ((company.channels as { name: string }[] | undefined) ?? []).map((c) => c.name),
        );
        add('agent', file, (company.agent as { name?: string } | undefined)?.name);
      }
      if (typeof document.id === 'string') {
        add('scenario or policy id', file, document.id);
      }
      add('rule id', file, valuesOf(document.rules, 'id'));
      add('cost centre', file, valuesOf(document, 'freeze_budget'), valuesOf(document, 'alternative_cost_centre'));
      // Background traffic names Slack channels; a declared party's `channels` are the stack's services (mail, slack).
      const parties = Object.values((document.parties as Record<string, Record<string, unknown>> | undefined) ?? {});
      add(
        'channel',
        file,
        valuesOf(
          parties.filter((p) => p.persona === 'background-traffic'),
          'channels',
        ),
      );
      // Only a channels rule's `allowed` lists Slack channels (a disclosure rule's lists mail domains, `internal`).
      const rules = (document.rules as Record<string, unknown>[] | undefined) ?? [];
      add(
        'channel',
        file,
        valuesOf(
          rules.filter((r) => r.kind === 'channels'),
          'allowed',
        ),
      );
    }
    if (/\.csv$/.test(file)) {
      const [header, ...rows] = text.trim().split('\n');
      const columns = header.split(',');
      const named = columns.flatMap((c, index) => (/(^|_)name$/.test(c) ? [index] : []));
      add(
        'sample name',
        file,
        rows.flatMap((row) => named.map((index) => row.split(',')[index])),
      );
    }
  }
  const seen = new Set<string>();
  // One entry per term, from the first file that names it.
  return terms.filter((t) => {
    const key = t.term.toLowerCase();
    return !(key in allowed) && !seen.has(key) && Boolean(seen.add(key));
  });
};

/** Approval thresholds: the figure itself is ordinary, so it counts only where code talks about approving. */
const thresholds = (): { value: number; from: string }[] =>
  exampleFiles
    .filter((file) => /\.ya?ml$/.test(file))
    .flatMap((file) =>
      valuesOf(yaml.parse(fs.readFileSync(file, 'utf8')), 'threshold')
        .filter((v): v is number => typeof v === 'number')
        .map((value) => ({ value, from: relative(file) })),
    );

/** Runs of this many words of an example's prose (goals, descriptions, policy text) count as its wording. */
const phraseWords = 7;
const words = (text: string): string[] => text.toLowerCase().match(/[a-z0-9']+/g) ?? [];
const examplePhrases = (): Map<string, string> => {
  const phrases = new Map<string, string>();
  for (const file of exampleFiles.filter((f) => /\.(ya?ml|md)$/.test(f))) {
    const text = fs.readFileSync(file, 'utf8');
    const prose = /\.md$/.test(file)
      ? [text]
      : [
          ...valuesOf(yaml.parse(text), 'title'),
          ...valuesOf(yaml.parse(text), 'goal'),
          ...valuesOf(yaml.parse(text), 'context'),
          ...valuesOf(yaml.parse(text), 'description'),
          ...valuesOf(yaml.parse(text), 'purpose'),
          ...valuesOf(yaml.parse(text), 'question'),
        ].flatMap(strings);
    for (const passage of prose) {
      // Template placeholders are the scenario's own names, not wording.
      const list = words(passage.replace(/\{\{[^}]*\}\}/g, ' '));
      for (let i = 0; i + phraseWords <= list.length; i++) {
        phrases.set(list.slice(i, i + phraseWords).join(' '), relative(file));
      }
    }
  }
  return phrases;
};

const isTest = (file: string): boolean =>
  /\.(spec|int-spec|e2e-spec)\.ts$/.test(file) || /[\\/](fixtures|test-support)[\\/]/.test(file);
const sourceFiles = ['libs', 'apps', 'twins'].flatMap((folder) =>
  walk(path.join(root, folder), (file) => /\.(ts|ya?ml|json|sql)$/.test(file) && !isTest(file)),
);

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('example knowledge in generic code', () => {
  const terms = exampleTerms();
  const sources = sourceFiles.map((file) => ({ file: relative(file), text: fs.readFileSync(file, 'utf8') }));

  it('reads what the examples know from the examples themselves', () => {
    const kinds = new Set(terms.map((t) => t.kind));
    // Each kind the example bundles carry is found: a change in their layout cannot silently empty the check.
    for (const kind of ['mail address', 'domain', 'company name', 'cost centre', 'channel', 'rule id', 'sample name']) {
      expect(kinds).toContain(kind);
    }
    expect(thresholds().length).toBeGreaterThan(0);
    expect(examplePhrases().size).toBeGreaterThan(100);
    expect(sources.length).toBeGreaterThan(100);
  });

  it("names no example's company, people, domains, channels, cost centres or ids", () => {
    const found: string[] = [];
    for (const { term, kind, from } of terms) {
      // A whole word or name, not part of a longer one (`CC-100` is not in `CC-1000`).
      const pattern = new RegExp(`(?<![\\w-])${escape(term)}(?![\\w-])`, 'i');
      for (const source of sources) {
        const line = source.text.split('\n').findIndex((l) => pattern.test(l));
        if (line >= 0) {
          found.push(`${source.file}:${line + 1}: ${kind} "${term}" (from ${from})`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it("holds no example's approval threshold", () => {
    const found: string[] = [];
    for (const { value, from } of thresholds()) {
      const forms = [String(value), value.toLocaleString('en-GB'), value.toLocaleString('en-GB').replace(/,/g, '_')];
      const figure = new RegExp(`(?<![\\w.,])(${[...new Set(forms)].map(escape).join('|')})(?![\\w.,])`);
      for (const source of sources) {
        source.text.split('\n').forEach((line, index) => {
          if (figure.test(line) && /threshold|approv/i.test(line)) {
            found.push(`${source.file}:${index + 1}: threshold ${value} (from ${from})`);
          }
        });
      }
    }
    expect(found).toEqual([]);
  });

  it("repeats no example's wording", () => {
    const phrases = examplePhrases();
    const found: string[] = [];
    for (const source of sources) {
      const list = words(source.text);
      for (let i = 0; i + phraseWords <= list.length; i++) {
        const phrase = list.slice(i, i + phraseWords).join(' ');
        if (phrases.has(phrase)) {
          found.push(`${source.file}: "${phrase}" (from ${phrases.get(phrase)})`);
        }
      }
    }
    expect([...new Set(found)]).toEqual([]);
  });
});
