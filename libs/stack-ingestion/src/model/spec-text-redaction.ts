import { isRedacted, Redaction, redactionMarker, Redactor } from '@libs/redaction';
import type { ServiceModel, StackWarning } from '@libs/stack-model';

/** Where a spec writes sample values: OpenAPI's `example(s)` and `default`, and the vendor `x-example(s)`. */
const exampleKeys = new Set(['example', 'examples', 'default', 'x-example', 'x-examples']);

/**
 * Prose written for people, nowhere read to decide what a twin does once the model is built (pagination and the
 * like are read off descriptions before this runs): a description can quote a real customer's address or a live key.
 */
const proseKeys = new Set(['description', 'summary', 'title', 'termsOfService']);

/**
 * Whole objects that only describe the spec to people: the document's `info` (contact, licence) and any
 * `externalDocs` (a URL with a description). A schema property of either name is a schema, not one of them.
 */
const isDescribing = (key: string, value: unknown, pointer: string): boolean =>
  isRecord(value) && ((key === 'info' && pointer === '') || (key === 'externalDocs' && typeof value.url === 'string'));

const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

type SiteKind = 'example' | 'prose' | 'server';

interface Site {
  parent: Record<string, unknown>;
  key: string;
  pointer: string;
  kind: SiteKind;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The non-structural places of a document: examples and defaults (whole), prose strings, the describing objects
 * (whole), and server URLs. Keys, names, paths, types, formats and enums are never sites: twins behave on them.
 */
const textSites = (document: unknown): Site[] => {
  const sites: Site[] = [];
  const stack: [unknown, string][] = [[document, '']];
  while (stack.length > 0) {
    const [node, pointer] = stack.pop()!;
    if (Array.isArray(node)) {
      node.forEach((item, index) => stack.push([item, `${pointer}/${index}`]));
    } else if (isRecord(node)) {
      for (const [key, value] of Object.entries(node)) {
        const at = `${pointer}/${escape(key)}`;
        if (exampleKeys.has(key)) {
          sites.push({ parent: node, key, pointer: at, kind: 'example' });
        } else if ((proseKeys.has(key) && typeof value === 'string') || isDescribing(key, value, pointer)) {
          sites.push({ parent: node, key, pointer: at, kind: 'prose' });
        } else if (key === 'servers' && Array.isArray(value)) {
          value.forEach((server, index) => {
            if (isRecord(server) && typeof server.url === 'string') {
              sites.push({ parent: server, key: 'url', pointer: `${at}/${index}/url`, kind: 'server' });
            }
            // A server's description and its variables' defaults are found as prose and examples.
            stack.push([server, `${at}/${index}`]);
          });
        } else {
          stack.push([value, at]);
        }
      }
    }
  }
  return sites;
};

const userinfoPattern = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]*@/i;

/**
 * A URL's userinfo (`https://user:pass@host`) goes whole, and the URL keeps its scheme, host and path: the path is
 * the twin's base path. (secretlint's basic-auth rule would take the host with it.)
 */
const withoutUserinfo = (url: string): { value: string; redacted: boolean } => {
  const value = url.replace(userinfoPattern, '$1');
  return { value, redacted: value !== url };
};

const kindText = (redaction: Redaction): string =>
  redaction.kind === 'iban'
    ? 'an IBAN'
    : redaction.kind === 'email'
      ? 'an e-mail address'
      : redaction.kind === 'name'
        ? "a person's name"
        : `a ${redaction.kind}`;
const storedAs = (redaction: Redaction): string =>
  redaction.kind === 'email' ? 'redacted-email@ its domain' : `[redacted:${redaction.kind}]`;
const siteText: Record<SiteKind, string> = {
  example: 'an example or default',
  prose: 'a description or other text',
  server: 'a server URL',
};

/** The message every redaction warning starts with, whatever the place: what a reader greps for. */
export const specRedactionMessage = (kind: SiteKind | 'model', redaction: Redaction): string =>
  `${kind === 'model' ? 'a text of the model' : siteText[kind]} held a value that reads as ${kindText(redaction)} (${redaction.detector}): it is stored as ${storedAs(redaction)}`;

/** A contact URL as stored: a web page's scheme and host (its path or query may name the person), else a marker. */
const contactUrlKept = (text: string): string => {
  try {
    const url = new URL(text);
    if (!/^https?:$/.test(url.protocol)) {
      return redactionMarker('name');
    }
    const bare = `${url.protocol}//${url.host}/`;
    return url.href === bare && text.replace(/\/?$/, '/') === bare ? text : bare;
  } catch {
    return redactionMarker('name');
  }
};

/**
 * Words that make a contact an organisation or a team rather than a person (`API Team`, `Box, Inc`, `Developer
 * Relations`, `Support`): such a contact is the vendor's, and stays as written.
 */
const organisationWords =
  /\b(team|teams|support|inc|ltd|llc|llp|gmbh|ag|plc|corp|corporation|company|co|group|department|dept|division|relations|api|apis|developer|developers|platform|engineering|service|services|helpdesk|desk|office|foundation|project|community|sales|operations|ops|admin|administrators|it|contact|info|maintainers)\b/i;

/**
 * The person a spec names as its contact (`info.contact` whose name reads as no organisation nor team): the name goes
 * whole, the URL keeps its scheme and host only (a path or query can name the person: `/people/jane`, `?user=`). The
 * e-mail address is the redactor's, as every address in the document. Each change is a warning at its place. Nothing
 * a twin does reads the contact.
 */
const redactContact = (document: unknown, warn: (pointer: string, message: string) => void): void => {
  const contact = isRecord(document) && isRecord(document.info) ? document.info.contact : undefined;
  if (
    !isRecord(contact) ||
    typeof contact.name !== 'string' ||
    contact.name.trim() === '' ||
    organisationWords.test(contact.name) ||
    isRedacted(contact.name)
  ) {
    return;
  }
  contact.name = redactionMarker('name');
  warn('/info/contact/name', specRedactionMessage('prose', { kind: 'name', place: '/', detector: 'spec-contact' }));
  if (typeof contact.url === 'string' && !isRedacted(contact.url)) {
    const kept = contactUrlKept(contact.url);
    if (kept !== contact.url) {
      contact.url = kept;
      warn('/info/contact/url', `the contact's URL may name a person: it is stored as ${kept}`);
    }
  }
};

/**
 * Redacts the secrets and personal data a client's spec carries outside its structure (a real customer's address in
 * a response example or a description, a live key in a parameter's default or a server URL's query, a password in a
 * server URL, a contact's e-mail in `info`), in place, before the model is hashed and stored; each redaction becomes
 * a warning naming its place and kind, never the value. The model's own copies of those texts (title, servers,
 * operation summaries, parameter descriptions) get the same replacement. Reserved documentation domains and
 * placeholders are no one's data and stay, so a vendor's texts mostly read as they were written.
 */
export const redactServiceTexts = (service: ServiceModel): StackWarning[] => {
  const redactor = new Redactor();
  const warnings: StackWarning[] = [];
  const warn = (pointer: string, message: string): void => {
    warnings.push({ location: `${service.sourceFile}#${pointer}`, file: service.sourceFile, pointer, message });
  };
  redactContact(service.document, warn);
  const sites = textSites(service.document);
  // What each redacted text became, so the model's copies of it read the same as the document.
  const replaced = new Map<string, string>();
  const originals = sites.map((site) => site.parent[site.key]);
  const inputs = sites.map((site, index) => {
    if (site.kind !== 'server') {
      return originals[index];
    }
    const stripped = withoutUserinfo(originals[index] as string);
    if (stripped.redacted) {
      warn(site.pointer, specRedactionMessage('server', { kind: 'secret', place: '/', detector: 'url-userinfo' }));
    }
    return stripped.value;
  });
  // One pass over every site of the document (secretlint reads them as one text).
  const { value, redactions } = sites.length === 0 ? { value: [], redactions: [] } : redactor.json(inputs);
  for (const redaction of redactions) {
    const [, index, ...rest] = redaction.place.split('/');
    const site = sites[Number(index)];
    warn([site.pointer, ...rest].join('/'), specRedactionMessage(site.kind, redaction));
  }
  sites.forEach((site, index) => {
    const next = value[index];
    if (next !== originals[index]) {
      site.parent[site.key] = next;
      if (typeof originals[index] === 'string') {
        replaced.set(originals[index], next as string);
      }
    }
  });
  // Copies the document does not hold (a base URL from mirror.yaml) are redacted on their own.
  const copy = (text: string, pointer: string): string => {
    const known = replaced.get(text);
    if (known !== undefined) {
      return known;
    }
    const stripped = withoutUserinfo(text);
    const redacted = redactor.text(stripped.value);
    for (const redaction of [
      ...(stripped.redacted ? [{ kind: 'secret' as const, place: '/', detector: 'url-userinfo' }] : []),
      ...redacted.redactions,
    ]) {
      warn(pointer, specRedactionMessage('model', redaction));
    }
    return redacted.value;
  };
  service.title = copy(service.title, '/info/title');
  service.servers = service.servers.map((server) => copy(server, '/servers'));
  for (const operation of service.operations) {
    if (operation.summary !== undefined) {
      operation.summary = copy(operation.summary, `${operation.pointer}/summary`);
    }
    for (const parameter of operation.parameters) {
      if (parameter.description !== undefined) {
        parameter.description = copy(parameter.description, `${operation.pointer}/parameters`);
      }
    }
  }
  return warnings;
};
