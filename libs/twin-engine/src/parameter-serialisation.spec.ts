import * as path from 'node:path';

import { repositoryRoot } from '@test/support/cli-runner';
import { DocumentValidators } from '@libs/openapi-schemas';
import { ingestStack } from '@libs/stack-ingestion';

import { OperationPlan, planOperations } from './operation-plan';
import { validateRequest } from './request-validation';

const fixture = (name: string): string => path.join(repositoryRoot, 'test', 'fixtures', 'fidelity', 'wire', name);

/** Real ingestion of a spec written for the test, then the request validator on the plans the twin would use. */
const loadService = async (file: string) => {
  const { model } = await ingestStack({ kind: 'path', path: fixture(file) });
  const service = model.services[0];
  const validators = new DocumentValidators(service.document, service.dialect);
  const plans = planOperations(service, []);
  const plan = (id: string): OperationPlan => plans.find((p) => p.operation.id === id) as OperationPlan;
  return { service, validators, plan };
};

describe('parameter serialisation', () => {
  let loaded: Awaited<ReturnType<typeof loadService>>;
  const call = (
    operationId: string,
    search: string,
    pathParams: Record<string, string> = {},
    headers: Record<string, string> = {},
  ) =>
    validateRequest(
      loaded.plan(operationId),
      { method: 'GET', path: '/', query: new URLSearchParams(search), search, headers },
      pathParams,
      loaded.validators,
      loaded.service.document,
    );
  const query = (operationId: string, search: string, headers: Record<string, string> = {}) => {
    const result = call(operationId, search, {}, headers);
    if (!result.ok) {
      throw new Error(result.message);
    }
    return result.query;
  };

  beforeAll(async () => {
    loaded = await loadService('parameter-styles.yaml');
  });

  it('reads path lists in the simple, label and matrix styles', () => {
    expect(call('simpleList', '', { ids: '1,2,3' })).toMatchObject({ ok: true, path: { ids: [1, 2, 3] } });
    expect(call('labelList', '', { ids: '.1,2,3' })).toMatchObject({ ok: true, path: { ids: [1, 2, 3] } });
    expect(call('labelExploded', '', { ids: '.1.2.3' })).toMatchObject({ ok: true, path: { ids: [1, 2, 3] } });
    expect(call('matrixOne', '', { id: ';id=5' })).toMatchObject({ ok: true, path: { id: 5 } });
    expect(call('matrixExploded', '', { ids: ';ids=3;ids=4' })).toMatchObject({ ok: true, path: { ids: [3, 4] } });
  });

  it('refuses a path value that is not what its style and type say, naming the parameter', () => {
    expect(call('matrixOne', '', { id: ';id=five' })).toMatchObject({
      ok: false,
      status: 400,
      problems: [{ location: 'path.id' }],
    });
    expect(call('labelList', '', { ids: '.1,x' })).toMatchObject({ ok: false, problems: [{ location: 'path.ids' }] });
  });

  it('reads query lists exploded, joined, space- and pipe-delimited, and in brackets', () => {
    expect(query('search', 'tags=a&tags=b')).toEqual({ tags: ['a', 'b'] });
    expect(query('search', 'tags[]=a&tags[]=b')).toEqual({ tags: ['a', 'b'] });
    expect(query('search', 'ids=1,2,3')).toEqual({ ids: [1, 2, 3] });
    expect(query('search', 'spaced=1%202+3')).toEqual({ spaced: [1, 2, 3] });
    expect(query('search', 'piped=4|5')).toEqual({ piped: [4, 5] });
  });

  it('keeps an exploded item with a comma whole when that is valid, and splits it when only that is', () => {
    expect(query('search', 'tags=a,b')).toEqual({ tags: ['a,b'] });
    expect(query('search', 'tags=ab,cd')).toEqual({ tags: ['ab', 'cd'] });
    expect(call('search', 'tags=abcd,e')).toMatchObject({ ok: false, problems: [{ location: 'query.tags' }] });
  });

  it('reads deepObject filters, nested, with their types', () => {
    expect(query('search', 'filter[name]=ann&filter[min]=3&filter[range][gte]=2')).toEqual({
      filter: { name: 'ann', min: 3, range: { gte: 2 } },
    });
    expect(call('search', 'filter[nope]=1')).toMatchObject({ ok: false, problems: [{ location: 'query.filter' }] });
  });

  it('reads objects exploded by property name and joined as pairs', () => {
    expect(query('search', 'R=100&G=200')).toEqual({ color: { R: 100, G: 200 } });
    expect(query('search', 'point=x,1,y,2')).toEqual({ point: { x: 1, y: 2 } });
  });

  it('reads header lists and objects in the simple style', () => {
    expect(call('simpleList', '', { ids: '1' }, { 'x-ids': '7,8', 'x-point': 'x=1,y=2' })).toMatchObject({
      ok: true,
      path: { ids: [1] },
    });
    expect(call('simpleList', '', { ids: '1' }, { 'x-ids': '7,eight' })).toMatchObject({
      ok: false,
      problems: [{ location: 'header.X-Ids' }],
    });
  });

  it('reads and checks cookie parameters', () => {
    expect(call('search', '', {}, { cookie: 'prefs=a,b; session=xyz' })).toMatchObject({ ok: true });
    expect(call('search', '', {}, { cookie: 'prefs=a,c' })).toMatchObject({
      ok: false,
      problems: [{ location: 'cookie.prefs' }],
    });
    expect(call('search', '', {}, { cookie: 'session=x' })).toMatchObject({
      ok: false,
      problems: [{ location: 'cookie.session' }],
    });
  });

  it("reads Swagger 2's collection formats", async () => {
    loaded = await loadService('collection-formats.yaml');
    expect(query('search', 'csv=1,2&ssv=3%204&pipes=5|6&tsv=7%098&multi=9&multi=10')).toEqual({
      csv: [1, 2],
      ssv: [3, 4],
      pipes: [5, 6],
      tsv: [7, 8],
      multi: [9, 10],
    });
  });
});
