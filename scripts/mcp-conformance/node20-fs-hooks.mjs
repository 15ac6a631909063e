// The conformance CLI imports fs.globSync (Node 22) at load, though only its tier-check uses it. On Node 20 this
// resolves its `fs` to one that adds a globSync that refuses, so the server checks run unchanged.
export async function resolve(specifier, context, next) {
  if (
    (specifier === 'fs' || specifier === 'node:fs') &&
    context.parentURL?.includes('@modelcontextprotocol/conformance')
  ) {
    return { url: new URL('./node20-fs.mjs', import.meta.url).href, shortCircuit: true };
  }
  return next(specifier, context);
}
