import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

import * as ts from 'typescript';

/**
 * The architecture rule of issue 16: every public method of a repository takes the tenant first, so no query can forget
 * it. A parameter that names its tenant itself (an episode's descriptor carries `tenantId`, and the store writes the
 * row under it) counts as the tenant. What is deliberately not scoped is listed below with its reason; anything else
 * without the tenant fails here, naming the file and the method.
 */
const exceptions: Record<string, string> = {
  'ApiKeyRepository.findForAuthentication': 'authentication is how the tenant is learnt: by the key’s public id alone',
  'AuditTrailRepository.signingKey':
    'the installation’s evidence-signing key, one for every tenant; it holds no tenant data',
};

/** Parameter types that carry their tenant (`tenantId`) with them. */
const tenantCarrying = new Set(['EpisodeDescriptor', 'ForkDescriptor']);

const tenantNames = new Set(['tenantId', 'tenant']);

/** The public methods of the exported classes in a source, with whether each takes the tenant first. */
const publicMethodsWithoutTenant = (fileName: string, text: string): string[] => {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const missing: string[] = [];
  for (const statement of source.statements) {
    const exported = ts.getModifiers(statement as ts.HasModifiers)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!ts.isClassDeclaration(statement) || !exported || !statement.name) {
      continue;
    }
    for (const member of statement.members) {
      if (!ts.isMethodDeclaration(member) || !ts.isIdentifier(member.name)) {
        continue;
      }
      const hidden = ts
        .getModifiers(member)
        ?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword);
      if (hidden || member.name.text.startsWith('#')) {
        continue;
      }
      const [first] = member.parameters;
      const takesTenant =
        first !== undefined &&
        ((ts.isIdentifier(first.name) && tenantNames.has(first.name.text)) ||
          (first.type !== undefined && tenantCarrying.has(first.type.getText(source))));
      if (!takesTenant) {
        missing.push(`${statement.name.text}.${member.name.text}`);
      }
    }
  }
  return missing;
};

const repositoryRoot = path.join(__dirname);
/** The repositories, and the episode store's port (its PostgreSQL implementation is one of them). */
const sources = [
  ...readdirSync(repositoryRoot)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
    .map((file) => path.join(repositoryRoot, file)),
  path.join(__dirname, '../../../twin-engine/src/episode-events.ts'),
];

describe('repositories take the tenant', () => {
  const found = sources.flatMap((file) =>
    publicMethodsWithoutTenant(file, readFileSync(file, 'utf8')).map((method) => ({ file, method })),
  );

  it('in every public method, unless the method is a listed exception', () => {
    const unexplained = found
      .filter(({ method }) => !(method in exceptions))
      .map(({ file, method }) => `${path.relative(process.cwd(), file)}: ${method} takes no tenant first`);

    expect(unexplained).toEqual([]);
  });

  it('lists no exception that is not there any more', () => {
    const present = new Set(found.map(({ method }) => method));

    expect(Object.keys(exceptions).filter((method) => !present.has(method))).toEqual([]);
  });

  it('finds a method that forgets the tenant, and accepts one that takes it or a descriptor naming it', () => {
    const text = `
      export class WidgetRepository {
        constructor(private readonly dataSource: DataSource) {}
        find(tenantId: string, id: string) {}
        byId(id: string) {}
        async create(episode: EpisodeDescriptor) {}
        private helper(id: string) {}
      }
      class Internal { any(id: string) {} }
    `;

    expect(publicMethodsWithoutTenant('widget.repository.ts', text)).toEqual(['WidgetRepository.byId']);
  });
});
