import { Redactor } from '@libs/redaction';
import type { ServiceModel, StackWarning } from '@libs/stack-model';

/** Where a spec writes sample values: OpenAPI's `example(s)` and `default`, and the vendor `x-example(s)`. */
const exampleKeys = new Set(['example', 'examples', 'default', 'x-example', 'x-examples']);

const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

interface Site {
  parent: Record<string, unknown>;
  key: string;
  pointer: string;
}

const exampleSites = (document: unknown): Site[] => {
  const sites: Site[] = [];
  const stack: [unknown, string][] = [[document, '']];
  while (stack.length > 0) {
    const [node, pointer] = stack.pop()!;
    if (Array.isArray(node)) {
      node.forEach((item, index) => stack.push([item, `${pointer}/${index}`]));
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        const at = `${pointer}/${escape(key)}`;
        if (exampleKeys.has(key)) {
          sites.push({ parent: node as Record<string, unknown>, key, pointer: at });
        } else {
          stack.push([value, at]);
        }
      }
    }
  }
  return sites;
};

/**
 * Redacts the secrets and personal data a client's spec carries in its examples and defaults (a real customer's
 * address in a response example, a live key in a parameter's default), in place, before the model is hashed and
 * stored; each redaction becomes a warning naming its place and kind, never the value. Reserved documentation
 * domains and placeholders are no one's data and stay, so a vendor's examples mostly read as they were written.
 */
export const redactServiceExamples = (service: ServiceModel): StackWarning[] => {
  const sites = exampleSites(service.document);
  if (sites.length === 0) {
    return [];
  }
  // One pass over every example of the document (secretlint reads them as one text).
  const { value, redactions } = new Redactor().json(sites.map((site) => site.parent[site.key]));
  if (redactions.length === 0) {
    return [];
  }
  sites.forEach((site, index) => {
    site.parent[site.key] = value[index];
  });
  return redactions.map((redaction) => {
    const [, index, ...rest] = redaction.place.split('/');
    const pointer = [sites[Number(index)].pointer, ...rest].join('/');
    return {
      location: `${service.sourceFile}#${pointer}`,
      file: service.sourceFile,
      pointer,
      message: `an example or default held a value that reads as ${redaction.kind === 'iban' ? 'an IBAN' : `a ${redaction.kind}`} (${redaction.detector}): it is stored as ${redaction.kind === 'email' ? 'redacted-email@ its domain' : `[redacted:${redaction.kind}]`}`,
    };
  });
};
