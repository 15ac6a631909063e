import { detectPagination } from './pagination-detection';

describe(detectPagination.name, () => {
  it.each([
    [
      ['limit', 'starting_after', 'ending_before'],
      [],
      { style: 'cursor', parameters: { cursor: 'starting_after', before: 'ending_before', limit: 'limit' } },
    ],
    [
      ['PageSize', 'Page', 'PageToken'],
      [],
      { style: 'cursor', parameters: { cursor: 'PageToken', limit: 'PageSize' } },
    ],
    [['limit', 'offset'], [], { style: 'offset', parameters: { offset: 'offset', limit: 'limit' } }],
    [['$top', '$skip'], [], { style: 'offset', parameters: { offset: '$skip', limit: '$top' } }],
    [['page', 'per_page'], [], { style: 'page', parameters: { page: 'page', limit: 'per_page' } }],
    [['per_page'], ['Link'], { style: 'link-header', parameters: { limit: 'per_page' } }],
    [['limit'], [], { style: 'none', parameters: { limit: 'limit' } }],
    [['status'], [], { style: 'none', parameters: {} }],
  ])('reads %j with headers %j as %j', (query, headers, expected) => {
    expect(detectPagination(query, headers)).toEqual(expected);
  });
});
