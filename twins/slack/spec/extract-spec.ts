/**
 * Builds the Slack pack's spec from Slack's published Web API spec (slackapi/slack-api-specs, Swagger 2.0, MIT):
 * the methods the pack covers, every definition they reach, and the corrections listed in `corrections` where the
 * published spec disagrees with what Slack answers. Run once per upstream update:
 *   npx tsx --tsconfig tsconfig.json twins/slack/spec/extract-spec.ts <slack_web_openapi_v2.json>
 * The output (slack-web-api.json, beside this file) is committed; nothing reads the upstream file at run time.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { slackMethods } from '../slack-methods';

type Json = Record<string, unknown>;

const [upstreamPath] = process.argv.slice(2);
if (!upstreamPath) {
  process.stderr.write('usage: extract-spec.ts <slack_web_openapi_v2.json>\n');
  process.exit(2);
}
const upstream = JSON.parse(fs.readFileSync(upstreamPath, 'utf8')) as Json & {
  paths: Record<string, Record<string, Json>>;
  definitions: Record<string, Json>;
};

/** Error codes the real API answers for these methods that the published enums leave out. */
const extraErrors: Record<string, string[]> = {
  'chat.postMessage': ['ratelimited', 'invalid_arguments', 'thread_not_found'],
  'chat.update': ['ratelimited', 'invalid_arguments', 'not_in_channel'],
  'chat.delete': ['ratelimited', 'invalid_arguments', 'not_in_channel'],
  'conversations.history': ['ratelimited', 'not_in_channel', 'invalid_arguments', 'invalid_cursor'],
  'conversations.replies': ['ratelimited', 'not_in_channel', 'invalid_arguments'],
  'conversations.members': ['ratelimited', 'invalid_arguments'],
  'conversations.info': ['ratelimited', 'invalid_arguments'],
  'conversations.list': ['ratelimited', 'invalid_cursor'],
  'conversations.create': ['ratelimited', 'invalid_arguments'],
  'conversations.join': ['ratelimited', 'invalid_arguments'],
  'conversations.open': ['ratelimited', 'invalid_arguments'],
  'users.list': ['ratelimited', 'invalid_cursor'],
  'users.info': ['ratelimited', 'invalid_arguments'],
  'users.lookupByEmail': ['ratelimited', 'invalid_arguments'],
  'reactions.add': ['ratelimited', 'invalid_arguments', 'not_in_channel'],
  'reactions.get': ['ratelimited', 'invalid_arguments', 'not_in_channel'],
  'search.messages': ['ratelimited', 'invalid_arguments'],
  'files.upload': ['ratelimited', 'invalid_arguments', 'not_in_channel'],
  'auth.test': ['ratelimited'],
};

const corrections: string[] = [];

/** The published spec requires non-empty arrays (`minItems: 1`) where Slack answers empty ones (a quiet channel). */
const dropNonEmptyArrays = (node: unknown): void => {
  if (Array.isArray(node)) {
    node.forEach(dropNonEmptyArrays);
  } else if (node && typeof node === 'object') {
    const object = node as Json;
    if (object.type === 'array' && object.minItems === 1) {
      delete object.minItems;
    }
    Object.values(object).forEach(dropNonEmptyArrays);
  }
};

const reachable = new Set<string>();
const collect = (node: unknown): void => {
  if (Array.isArray(node)) {
    node.forEach(collect);
  } else if (node && typeof node === 'object') {
    const ref = (node as Json).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/definitions/')) {
      const name = ref.slice('#/definitions/'.length);
      if (!reachable.has(name)) {
        reachable.add(name);
        collect(upstream.definitions[name]);
      }
    }
    Object.values(node).forEach(collect);
  }
};

const paths: Record<string, Record<string, Json>> = {};
for (const method of slackMethods) {
  const item = upstream.paths[`/${method}`];
  if (!item) {
    throw new Error(`the upstream spec has no /${method}`);
  }
  const copy = structuredClone(item);
  for (const operation of Object.values(copy)) {
    const responses = operation.responses as Record<string, { schema?: Json }>;
    const success = responses['200']?.schema;
    const failure = responses.default?.schema;
    const errorEnum = (failure?.properties as Record<string, Json> | undefined)?.error;
    if (errorEnum && Array.isArray(errorEnum.enum)) {
      const missing = (extraErrors[method] ?? []).filter((code) => !(errorEnum.enum as string[]).includes(code));
      if (missing.length > 0) {
        errorEnum.enum = [...(errorEnum.enum as string[]), ...missing];
        corrections.push(`${method}: error codes ${missing.join(', ')} added`);
      }
    }
    const properties = success?.properties as Record<string, Json> | undefined;
    if (properties && /history|replies/.test(method) && !properties.response_metadata) {
      properties.response_metadata = {
        type: 'object',
        additionalProperties: false,
        properties: { next_cursor: { type: 'string' } },
        required: ['next_cursor'],
      };
      corrections.push(`${method}: response_metadata.next_cursor added (cursor pagination)`);
    }
  }
  paths[`/${method}`] = copy;
  collect(copy);
}

const definitions = Object.fromEntries(
  [...reachable].sort().map((name) => [name, structuredClone(upstream.definitions[name])]),
);
const spec: Json = {
  swagger: '2.0',
  info: {
    ...(upstream.info as Json),
    description: `The Slack Web API methods Mirror's Slack twin covers, extracted from Slack's published spec (slackapi/slack-api-specs, MIT licence) with these corrections: arrays may be empty; ${corrections.join('; ')}.`,
  },
  host: upstream.host,
  basePath: upstream.basePath,
  schemes: upstream.schemes,
  securityDefinitions: upstream.securityDefinitions,
  paths,
  definitions,
};
dropNonEmptyArrays(spec);
fs.writeFileSync(path.join(__dirname, 'slack-web-api.json'), `${JSON.stringify(spec, null, 1)}\n`);
process.stdout.write(`${Object.keys(paths).length} methods, ${Object.keys(definitions).length} definitions\n`);
