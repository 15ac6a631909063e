import type { Schema } from '@libs/openapi-schemas';
import type { CompanyDeclaration } from '@libs/stack-model';

import type { Company } from './company';
import { englishFaker } from './mersenne-randomizer';
import { hashSeed } from './seeded-random';
import { WorldRecord } from './world';

/**
 * Records of a spec resource that are the company's people (`company.people_in` in mirror.yaml): the n-th record is
 * the company's n-th employee, so the same person has the same record (and id) in every episode of a seed, and a
 * Slack user, a mail address and, say, a Box account are one person. Past the headcount, generated people at the
 * company's domain: the resource is the company's, so nobody in it is outside it.
 *
 * Only declared resources: a schema cannot tell employees from a helpdesk's end users or a store's customers, and
 * turning outsiders into colleagues would hide exactly what an outside-address rule must see.
 */

/** Which fields of a record hold a person: found by name and format, or named by the bundle. */
export interface PersonFields {
  /** The mail address, or a login that is one (`format: email`). */
  email: string;
  /** A login that is not an address: the person's handle. */
  handle?: string;
  name?: string;
  firstName?: string;
  lastName?: string;
  jobTitle?: string;
  department?: string;
}

const normalise = (name: string): string => name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();

const isEmailFormat = (schema: Schema | undefined): boolean =>
  schema?.format === 'email' || schema?.format === 'idn-email';

/**
 * The heuristic: a person has an address (a field with `format: email`, else one named `email`, `mail`,
 * `email_address`, or `login`/`username` when it is an email) and a name (`name`, `full_name`, `display_name`, or
 * first and last name fields). Anything else (a handle, a job title, a department) is filled when present.
 */
export const personFields = (
  record: Schema,
  override: { email?: string; name?: string } = {},
): PersonFields | undefined => {
  const properties = (record.properties ?? {}) as Record<string, Schema>;
  const names = Object.keys(properties);
  const named = (pattern: RegExp): string | undefined => names.find((n) => pattern.test(normalise(n)));
  const loginPattern = /^(login|user_?name|handle)$/;
  const email =
    override.email ??
    named(/^(e?mail|email_address|primary_email|work_email)$/) ??
    names.find((n) => loginPattern.test(normalise(n)) && isEmailFormat(properties[n])) ??
    names.find((n) => isEmailFormat(properties[n]));
  const name = override.name ?? named(/^(full_|display_|real_)?name$/);
  const firstName = named(/^(first|given)_?name$/);
  const lastName = named(/^(last|family|sur)_?name$|^surname$/);
  if (email === undefined || !(email in properties) || (name === undefined && firstName === undefined)) {
    return undefined;
  }
  if (name !== undefined && !(name in properties)) {
    return undefined;
  }
  const handle = names.find((n) => n !== email && loginPattern.test(normalise(n)));
  const jobTitle = named(/^(job_title|position)$/);
  const department = named(/^department$/);
  return {
    email,
    ...(handle !== undefined ? { handle } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(firstName !== undefined ? { firstName } : {}),
    ...(lastName !== undefined ? { lastName } : {}),
    ...(jobTitle !== undefined ? { jobTitle } : {}),
    ...(department !== undefined ? { department } : {}),
  };
};

/** The declared people resources by world key (`service/resource`), with the fields the bundle names. */
export const declaredPeopleResources = (
  declaration: CompanyDeclaration | undefined,
): Map<string, { email?: string; name?: string }> =>
  new Map(
    (declaration?.people_in ?? []).map((entry) => {
      const { resource, ...fields } = typeof entry === 'string' ? { resource: entry } : entry;
      return [resource.replace('.', '/'), fields];
    }),
  );

interface Person {
  name: string;
  firstName: string;
  lastName: string;
  handle: string;
  email: string;
  title?: string;
  department?: string;
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '');

/**
 * The people of one resource, in record order: the employees first, then generated people whose addresses are at
 * the company's domain and taken by nobody else. Each generated one from its own seeded stream, so growing the
 * resource leaves the earlier ones.
 */
export class CompanyPeople {
  private readonly taken: Set<string>;
  private readonly generated = new Map<number, Person>();
  // Its own stream, so the records' other values are drawn exactly as they would be without it.
  private readonly faker = englishFaker();

  constructor(
    private readonly company: Company,
    private readonly seed: number,
    private readonly key: string,
  ) {
    this.taken = new Set(company.employees.map((e) => e.handle));
  }

  at(index: number): Person {
    const employee = this.company.employees[index];
    if (employee) {
      return employee;
    }
    const known = this.generated.get(index);
    if (known) {
      return known;
    }
    this.faker.seed(hashSeed(this.seed, this.key, index, 'person'));
    const firstName = this.faker.person.firstName();
    const lastName = this.faker.person.lastName();
    const base = `${slug(firstName)}.${slug(lastName)}`;
    let handle = base;
    for (let n = 2; this.taken.has(handle); n++) {
      handle = `${base}${n}`;
    }
    this.taken.add(handle);
    const person = {
      name: `${firstName} ${lastName}`,
      firstName,
      lastName,
      handle,
      email: `${handle}@${this.company.domain}`,
    };
    this.generated.set(index, person);
    return person;
  }
}

/** Writes a person into a record's person fields, each only where the record's schema accepts the value. */
export const fillPerson = (
  record: WorldRecord,
  fields: PersonFields,
  person: Person,
  schemaOf: (field: string) => Schema | undefined,
  isValid: (schema: Schema, value: unknown) => boolean,
): void => {
  const values: [string | undefined, string | undefined][] = [
    [fields.email, person.email],
    [fields.handle, person.handle],
    [fields.name, person.name],
    [fields.firstName, person.firstName],
    [fields.lastName, person.lastName],
    [fields.jobTitle, person.title],
    [fields.department, person.department],
  ];
  for (const [field, value] of values) {
    const schema = field === undefined ? undefined : schemaOf(field);
    if (field !== undefined && value !== undefined && schema && isValid(schema, value)) {
      record[field] = value;
    }
  }
};
