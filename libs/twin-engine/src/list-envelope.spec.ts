import { planListEnvelope } from './list-envelope';
import { Page } from './pagination';

// DigitalOcean's shared pagination: `links.pages` is forward links, backward links or anything (`{}`).
const document = {
  components: {
    schemas: {
      keys: {
        type: 'object',
        properties: {
          ssh_keys: { type: 'array', items: { type: 'object' } },
          links: {
            type: 'object',
            properties: {
              pages: {
                anyOf: [
                  {
                    allOf: [
                      { type: 'object', properties: { last: { type: 'string' } } },
                      { type: 'object', properties: { next: { type: 'string' } } },
                    ],
                  },
                  {
                    allOf: [
                      { type: 'object', properties: { first: { type: 'string' } } },
                      { type: 'object', properties: { prev: { type: 'string' } } },
                    ],
                  },
                  {},
                ],
              },
            },
          },
          meta: { type: 'object', properties: { total: { type: 'integer' } } },
        },
      },
    },
  },
};

const page = (offset: number, hasMore: boolean): Page => ({ ids: ['a', 'b'], total: 6, limit: 2, offset, hasMore });
const linkTo = (target: string) => `https://twin/v2/account/keys?page=${target}`;

describe('planListEnvelope', () => {
  const { setters } = planListEnvelope(document, { $ref: '#/components/schemas/keys' }, 'ssh_keys');
  const fill = (body: Record<string, unknown>, at: Page) => {
    setters.forEach((setter) => setter(body, at, linkTo));
    return body;
  };

  it('fills a union of link objects with the links the page has, whatever the template held there', () => {
    expect(fill({ links: { pages: 'venio tametsi' }, meta: { total: 3 } }, page(2, true))).toEqual({
      links: {
        pages: { first: linkTo('first'), prev: linkTo('prev'), next: linkTo('next'), last: linkTo('last') },
      },
      meta: { total: 6 },
    });
    expect(fill({ links: { pages: 'x' } }, page(0, true))).toEqual({
      links: { pages: { next: linkTo('next'), last: linkTo('last') } },
    });
    expect(fill({ links: { pages: { next: 'stale' } } }, page(4, false))).toEqual({
      links: { pages: { first: linkTo('first'), prev: linkTo('prev') } },
    });
  });

  it('names the field holding the items where the metadata has a key for it', () => {
    const envelope = {
      type: 'object',
      properties: {
        workspaces: { type: 'array', items: { type: 'object' } },
        meta: { type: 'object', properties: { key: { type: 'string' }, page_size: { type: 'integer' } } },
        key: { type: 'string' },
      },
    };
    const planned = planListEnvelope({}, envelope, 'workspaces');
    const body = { key: 'kept', meta: { key: 'impedit', page_size: 50 } };
    planned.setters.forEach((setter) => setter(body, page(0, false), linkTo));
    expect(body).toEqual({ key: 'kept', meta: { key: 'workspaces', page_size: 2 } });
  });
});
