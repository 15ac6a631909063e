import { linkHeader, paginate, PaginationError } from './pagination';

const ids = ['a', 'b', 'c', 'd', 'e'];
const links = (header: string | undefined): Record<string, string> =>
  Object.fromEntries([...(header ?? '').matchAll(/<([^>]+)>; rel="([a-z]+)"/g)].map((m) => [m[2], m[1]]));

describe(paginate.name, () => {
  const byId = {
    style: 'cursor' as const,
    parameters: { cursor: 'starting_after', before: 'ending_before', limit: 'limit' },
    byRecordId: true,
  };

  it('pages after and before a record id, and says whether more remain', () => {
    expect(paginate(ids, byId, { limit: 2 }, 10)).toMatchObject({ ids: ['a', 'b'], hasMore: true, nextCursor: 'b' });
    expect(paginate(ids, byId, { limit: 2, starting_after: 'b' }, 10)).toMatchObject({
      ids: ['c', 'd'],
      hasMore: true,
    });
    expect(paginate(ids, byId, { limit: 2, starting_after: 'd' }, 10)).toMatchObject({ ids: ['e'], hasMore: false });
    expect(paginate(ids, byId, { limit: 2, ending_before: 'c' }, 10)).toMatchObject({
      ids: ['a', 'b'],
      hasMore: false,
    });
    expect(paginate(ids, byId, { limit: 2, ending_before: 'e' }, 10)).toMatchObject({ ids: ['c', 'd'], hasMore: true });
  });

  it('pages by offset where the API takes an offset or a cursor, and the request sent no cursor', () => {
    const either = { style: 'cursor' as const, parameters: { cursor: 'marker', offset: 'offset', limit: 'limit' } };
    expect(paginate(ids, either, { offset: 2, limit: 2 }, 10)).toMatchObject({ ids: ['c', 'd'], offset: 2 });
    const next = paginate(ids, either, { limit: 2 }, 10).nextCursor;
    expect(paginate(ids, either, { marker: next, offset: 4, limit: 2 }, 10)).toMatchObject({ ids: ['c', 'd'] });
  });

  it('refuses an id the list does not hold, naming the parameter and the id', () => {
    expect(() => paginate(ids, byId, { starting_after: 'zz' }, 10)).toThrow(PaginationError);
    expect(() => paginate(ids, byId, { starting_after: 'zz' }, 10)).toThrow('starting_after: no object with id "zz"');
  });
});

describe(linkHeader.name, () => {
  const url = 'https://api.example.test/v2/items';

  it('links next, prev, first and last pages of a page-style list, keeping the other query parameters', () => {
    const pagination = { style: 'page' as const, parameters: { page: 'page', limit: 'per_page' }, linkHeader: true };
    const query = new URLSearchParams('per_page=2&page=2&state=open');
    const page = paginate(ids, pagination, { per_page: 2, page: 2 }, 30);
    expect(links(linkHeader(pagination, url, query, page))).toEqual({
      next: `${url}?per_page=2&page=3&state=open`,
      prev: `${url}?per_page=2&page=1&state=open`,
      first: `${url}?per_page=2&page=1&state=open`,
      last: `${url}?per_page=2&page=3&state=open`,
    });
  });

  it('links offsets, and a record-id cursor without a last page it cannot name', () => {
    const offset = { style: 'offset' as const, parameters: { offset: 'offset', limit: 'limit' } };
    const page = paginate(ids, offset, { limit: 2, offset: 4 }, 30);
    expect(links(linkHeader(offset, url, new URLSearchParams('limit=2&offset=4'), page))).toEqual({
      prev: `${url}?limit=2&offset=2`,
      first: `${url}?limit=2&offset=0`,
      last: `${url}?limit=2&offset=4`,
    });
    const cursor = { style: 'cursor' as const, parameters: { cursor: 'after', before: 'before' }, byRecordId: true };
    const middle = paginate(ids, cursor, { after: 'a' }, 2);
    expect(links(linkHeader(cursor, url, new URLSearchParams('after=a'), middle))).toEqual({
      next: `${url}?after=c`,
      prev: `${url}?before=b`,
      first: url,
    });
  });
});
