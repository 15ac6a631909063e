import type { Faker } from '@faker-js/faker';

/** What a string field holds, judged by its name the way a person reading the spec would. */
type StringMaker = (faker: Faker, constraints: { maxLength?: number }) => string;

const normalise = (name: string): string => name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();

const rules: [RegExp, StringMaker][] = [
  [/(^|_)e?mail(_address)?$/, (f) => f.internet.email().toLowerCase()],
  [/(^|_)(first|given)_?name$/, (f) => f.person.firstName()],
  [/(^|_)(last|family|sur)_?name$|^surname$/, (f) => f.person.lastName()],
  [/(^|_)(company|organi[sz]ation|supplier|vendor|business)(_name)?$/, (f) => f.company.name()],
  [/^(full_|display_|real_|user_)?name$/, (f) => f.person.fullName()],
  [/(^|_)user_?name$|^login$|^handle$/, (f) => f.internet.username()],
  [/(^|_)(phone|mobile|telephone|fax)(_number)?$/, (f) => f.phone.number({ style: 'international' })],
  [/(^|_)(url|website|homepage|href|link|uri)$/, (f) => f.internet.url()],
  [/(^|_)(avatar|image|photo|picture|logo)(_url)?$/, (f) => f.image.url()],
  [/(^|_)currency(_code)?$/, (f) => f.finance.currencyCode()],
  [
    /(^|_)country(_code)?$/,
    (f, c) =>
      c.maxLength !== undefined && c.maxLength <= 3 ? f.location.countryCode('alpha-2') : f.location.country(),
  ],
  [/(^|_)city$/, (f) => f.location.city()],
  [/(^|_)(street|address(_line_?\d?)?)$/, (f) => f.location.streetAddress()],
  [/(^|_)(postal_code|post_code|zip(_code)?)$/, (f) => f.location.zipCode()],
  [/(^|_)(state|province)$/, (f) => f.location.state()],
  [/(^|_)(time_?zone|tz)$/, (f) => f.location.timeZone()],
  [/(^|_)(locale|language)$/, () => 'en-US'],
  [/(^|_)(ip|ip_address|ipv4)$/, (f) => f.internet.ipv4()],
  [/(^|_)(domain|hostname|host)$/, (f) => f.internet.domainName()],
  [/(^|_)(colou?r)$/, (f) => f.color.human()],
  [/(^|_)slug$/, (f) => f.lorem.slug(3)],
  [/(^|_)(sku)$/, (f) => f.string.alphanumeric({ length: 8, casing: 'upper' })],
  [/(^|_)(title|subject|headline)$/, (f) => f.lorem.sentence({ min: 3, max: 6 }).replace(/\.$/, '')],
  [/(^|_)(description|summary|notes?|comment|body|text|message|bio|about)$/, (f) => f.lorem.sentence()],
  [/(^|_)(job_title|role|position)$/, (f) => f.person.jobTitle()],
  [/(^|_)(department|team)$/, (f) => f.commerce.department()],
  [/(^|_)(product|item)(_name)?$/, (f) => f.commerce.productName()],
];

export const stringForField = (
  faker: Faker,
  name: string | undefined,
  constraints: { maxLength?: number },
): string | undefined => {
  if (!name) {
    return undefined;
  }
  const key = normalise(name);
  const rule = rules.find(([pattern]) => pattern.test(key));
  return rule ? rule[1](faker, constraints) : undefined;
};

export type NumberKind = 'money' | 'quantity' | 'percentage' | 'latitude' | 'longitude' | undefined;

export const numberKindOf = (name: string | undefined): NumberKind => {
  const key = normalise(name ?? '');
  if (/(^|_)(price|amount|cost|total|subtotal|balance|budget|fee|salary|value)(_|$)/.test(key)) {
    return 'money';
  }
  if (/(^|_)(quantity|qty|count|size|units)$/.test(key)) {
    return 'quantity';
  }
  if (/(^|_)(percent|percentage|rate)$/.test(key)) {
    return 'percentage';
  }
  if (/(^|_)(lat|latitude)$/.test(key)) {
    return 'latitude';
  }
  if (/(^|_)(lng|lon|long|longitude)$/.test(key)) {
    return 'longitude';
  }
  return undefined;
};

/** Timestamps named like these describe a record's life: creation first, then updates. */
export const isCreatedField = (name: string): boolean =>
  /^(created|creation|inserted)(_?(at|on|date|time))?$|^date_?created$/.test(normalise(name));
export const isUpdatedField = (name: string): boolean =>
  /^(updated|modified|last_modified|changed)(_?(at|on|date|time))?$|^date_?(updated|modified)$/.test(normalise(name));

const organisationSubjects =
  /(supplier|vendor|compan|organi[sz]ation|customer|account|merchant|partner|client|business|tenant|team)/i;

/**
 * A record's own `name` depends on what the record is: a supplier is called like a company, an employee like a
 * person. Field names alone cannot tell, so the resource's name decides.
 */
export const subjectName = (faker: Faker, resourceName: string): string | undefined =>
  organisationSubjects.test(resourceName.split('.').pop() ?? resourceName) ? faker.company.name() : undefined;
