import {
  admitsAnonymous,
  credentialPlaces,
  declaredSchemes,
  describePlace,
  operationSecurity,
  placeCredential,
} from './security-requirements';

const document = {
  openapi: '3.0.3',
  security: [{ bearer: [] }],
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      basic: { type: 'http', scheme: 'Basic' },
      digest: { type: 'http', scheme: 'Digest' },
      key: { $ref: '#/components/x-keys/query' },
      session: { type: 'apiKey', in: 'cookie', name: 'sid' },
      oauth: {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://x/token', scopes: { read: 'r', write: 'w' } } },
      },
      mutual: { type: 'mutualTLS' },
    },
    'x-keys': { query: { type: 'apiKey', in: 'query', name: 'api_key' } },
  },
  paths: {
    '/a': {
      get: { responses: {} },
      post: { security: [{ oauth: ['write'], key: [] }, { basic: ['ignored-role'] }], responses: {} },
      put: { security: [], responses: {} },
      patch: { security: [{}, { bearer: [] }], responses: {} },
      delete: { security: [{ mutual: [] }, { undeclared: [] }, { digest: [] }], responses: {} },
    },
    '/b': { $ref: '#/x-items/b' },
  },
  'x-items': { b: { get: { security: [{ session: [] }], responses: {} } } },
};

describe('security requirements', () => {
  const of = (pointer: string) => operationSecurity(document, pointer);

  it('reads each scheme, following references, and where its credential goes', () => {
    const schemes = declaredSchemes(document);
    expect(schemes.get('bearer')?.place).toEqual({ in: 'bearer' });
    expect(schemes.get('basic')?.place).toEqual({ in: 'basic' });
    expect(schemes.get('digest')?.place).toEqual({ in: 'authorization', scheme: 'Digest' });
    expect(schemes.get('key')?.place).toEqual({ in: 'query', name: 'api_key' });
    expect(schemes.get('oauth')).toMatchObject({ place: { in: 'bearer' }, scopes: ['read', 'write'] });
    expect(schemes.get('mutual')?.place).toBeUndefined();
  });

  it("takes the operation's alternatives, else the document's; [] is anonymous", () => {
    expect(of('/paths/~1a/get').map((a) => a.map((r) => r.scheme.name))).toEqual([['bearer']]);
    const post = of('/paths/~1a/post');
    expect(post.map((a) => a.map((r) => [r.scheme.name, r.scopes]))).toEqual([
      [
        ['oauth', ['write']],
        ['key', []],
      ],
      [['basic', []]],
    ]);
    expect(admitsAnonymous(post)).toBe(false);
    expect(admitsAnonymous(of('/paths/~1a/put'))).toBe(true);
    expect(admitsAnonymous(of('/paths/~1a/patch'))).toBe(true);
    expect(of('/paths/~1b/get').map((a) => a.map((r) => r.scheme.name))).toEqual([['session']]);
  });

  it('leaves out alternatives no client could satisfy (an undeclared scheme, mutual TLS)', () => {
    expect(of('/paths/~1a/delete').map((a) => a.map((r) => r.scheme.name))).toEqual([['digest']]);
  });

  it('places one token in every place an alternative asks, and says where in words', () => {
    const places = credentialPlaces(of('/paths/~1a/post')[0]);
    expect(places).toEqual([{ in: 'bearer' }, { in: 'query', name: 'api_key' }]);
    expect(placeCredential(places, 't k')).toEqual({
      headers: { authorization: 'Bearer t k' },
      query: [['api_key', 't k']],
    });
    expect(
      placeCredential(
        [
          { in: 'cookie', name: 'sid' },
          { in: 'header', name: 'X-Key' },
        ],
        'a;b',
      ),
    ).toEqual({
      headers: { 'x-key': 'a;b', cookie: 'sid=a%3Bb' },
      query: [],
    });
    expect(placeCredential([{ in: 'basic' }], 'tok').headers.authorization).toBe(
      `Basic ${Buffer.from('tok:').toString('base64')}`,
    );
    expect(describePlace({ in: 'query', name: 'api_key' })).toBe('the token in the "api_key" query parameter');
  });
});
