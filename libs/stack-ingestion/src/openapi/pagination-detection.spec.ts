import { detectPagination } from './pagination-detection';

describe(detectPagination.name, () => {
  it.each([
    [
      ['limit', 'starting_after', 'ending_before'],
      [],
      {
        style: 'cursor',
        parameters: { cursor: 'starting_after', before: 'ending_before', limit: 'limit' },
        byRecordId: true,
      },
    ],
    [
      ['PageSize', 'Page', 'PageToken'],
      [],
      { style: 'cursor', parameters: { cursor: 'PageToken', limit: 'PageSize' } },
    ],
    [['limit', 'offset'], [], { style: 'offset', parameters: { offset: 'offset', limit: 'limit' } }],
    [
      ['usemarker', 'marker', 'offset', 'limit'],
      [],
      { style: 'cursor', parameters: { cursor: 'marker', offset: 'offset', limit: 'limit' } },
    ],
    [['$top', '$skip'], [], { style: 'offset', parameters: { offset: '$skip', limit: '$top' } }],
    [['page', 'per_page'], [], { style: 'page', parameters: { page: 'page', limit: 'per_page' } }],
    [['per_page'], ['Link'], { style: 'link-header', parameters: { limit: 'per_page' }, linkHeader: true }],
    [
      ['page', 'per_page'],
      ['link'],
      { style: 'page', parameters: { page: 'page', limit: 'per_page' }, linkHeader: true },
    ],
    [['limit'], [], { style: 'none', parameters: { limit: 'limit' } }],
    [['status'], [], { style: 'none', parameters: {} }],
  ])('reads %j with headers %j as %j', (query, headers, expected) => {
    expect(detectPagination(query, headers)).toEqual(expected);
  });
});

describe('pagination read from descriptions', () => {
  it('takes a cursor described as an object id for a record id, whatever its name', () => {
    expect(
      detectPagination(
        [{ name: 'after', description: '`after` is an object ID that defines your place in the list.' }, 'limit'],
        [],
      ),
    ).toEqual({ style: 'cursor', parameters: { cursor: 'after', limit: 'limit' }, byRecordId: true });
  });

  it('keeps a cursor described as a token opaque', () => {
    expect(detectPagination([{ name: 'after', description: 'A cursor, as given in the Link header.' }], [])).toEqual({
      style: 'cursor',
      parameters: { cursor: 'after' },
      linkHeader: true,
    });
    expect(detectPagination([{ name: 'after', description: 'The token from the previous response.' }], [])).toEqual({
      style: 'cursor',
      parameters: { cursor: 'after' },
    });
  });

  it('links pages when the prose says the Link header carries them', () => {
    expect(
      detectPagination(['page', 'per_page'], [], 'Pagination links are in the Link response header (rel="next").'),
    ).toEqual({ style: 'page', parameters: { page: 'page', limit: 'per_page' }, linkHeader: true });
    expect(detectPagination(['page'], [], 'Lists the pages of a wiki.')).toEqual({
      style: 'page',
      parameters: { page: 'page' },
    });
  });
});
