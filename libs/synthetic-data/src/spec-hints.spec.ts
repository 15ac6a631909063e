import { describedValues, exampleValues, isCategoryField } from './spec-hints';

describe(describedValues.name, () => {
  it.each<[string, string[]]>([
    ['The state of the issue. Either open or closed.', ['open', 'closed']],
    ["State of the issue; either 'open' or 'closed'", ['open', 'closed']],
    ['Can be one of: `open`, `closed`, or `all`. Default: `open`', ['open', 'closed', 'all']],
    ['Possible values are draft, sent and paid.', ['draft', 'sent', 'paid']],
    ['The kind of ticket (`question`, `incident` or `problem`).', ['question', 'incident', 'problem']],
    ['open or closed', ['open', 'closed']],
    ['Must be a valid email address or a phone number.', []],
    ['Use `per_page` to size pages.', []],
    ['When the `status` of the collaboration changed to `accepted` or `rejected`.', []],
    ['The subject of the ticket, as the requester wrote it.', []],
    ['A ticket can be created by an agent or by the requester.', []],
  ])('reads %j as %j', (description, expected) => {
    expect(describedValues(description)).toEqual(expected);
  });
});

describe(exampleValues.name, () => {
  it('takes examples, the example and the default, each once', () => {
    expect(exampleValues({ examples: ['a', 'b'], example: 'a', default: 'c' })).toEqual(['a', 'b', 'c']);
  });
});

describe(isCategoryField.name, () => {
  it.each([
    ['state', true],
    ['issueType', true],
    ['kind', true],
    ['subject', false],
    ['statement', false],
  ])('%s → %s', (name, expected) => expect(isCategoryField(name)).toBe(expected));
});
