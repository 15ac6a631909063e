import * as path from 'node:path';

import { sharedSpecsDir } from '@test/support/bundle-fixtures';
import { conformance, RequestMaker } from '@test/support/twin-requests';
import { operationSecurity } from '@libs/openapi-schemas';
import { ingestStack } from '@libs/stack-ingestion';

import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { StaticStackSource, TwinEngine } from './twin-engine';

/**
 * Every operation of every shared real-world spec, answered by its twin. Real: ingestion, world synthesis, the twin
 * engine, ajv validation of every response against the spec. Mocked: nothing (episodes live in memory here; the
 * PostgreSQL store has its own tests).
 *
 * Known divergences are listed, each with its reason, so that a regression and a fix both show up as a failure.
 */
const knownDivergences: Record<string, Record<string, string>> = {
  box: {
    // The request maker cannot always satisfy these request schemas; the twin rightly refuses with a 400.
    put_retention_policies_id: 'request enum inside allOf',
    post_ai_extract_structured: 'ambiguous oneOf request body',
  },
  digitalocean: {
    dropletActions_post_byTag: 'ambiguous oneOf request body',
    // A registry's name is its id, chosen by the client; the request maker sends the spec's example name, which an
    // earlier create in this pass already took, so the twin rightly answers 409.
    registries_create: 'client-assigned name already taken: 409',
  },
};

const specs: [string, string][] = [
  ['oai-petstore', 'oai-petstore.yaml'],
  ['oai-petstore-separate', 'oai-petstore-separate'],
  ['xero-projects', 'xero-projects.yaml'],
  ['twilio-taskrouter', 'twilio-taskrouter.yaml'],
  ['slack-web', 'slack-web.json'],
  ['box', 'box.json'],
  ['digitalocean', 'digitalocean/DigitalOcean-public.v2.yaml'],
];

const ingestedEngine = async (file: string) => {
  const { model, version } = await ingestStack({ kind: 'path', path: path.join(sharedSpecsDir(), file) });
  return { model, version, engine: new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model)) };
};

/**
 * One engine per spec for the whole file (ingestion has its own tests; DigitalOcean's alone takes seconds): each test
 * still gets an episode of its own, on the world the engine built once for the seed, as a deployment's episodes do.
 */
const engines = new Map<string, ReturnType<typeof ingestedEngine>>();

const engineFor = async (file: string) => {
  const ingested = engines.get(file) ?? ingestedEngine(file);
  engines.set(file, ingested);
  const { model, version, engine } = await ingested;
  const episode = await engine.createEpisode({
    tenantId: 'test',
    stackVersion: version,
    seed: 3,
    sizes: { recordsPerResource: 5, childrenPerParent: 2 },
  });
  return { engine, episode, model };
};

describe('twins of the shared real-world specs', () => {
  it.each(specs)(
    '%s: every operation answers, never with a 5xx, and in the shape its spec declares',
    async (name, file) => {
      const { episode } = await engineFor(file);
      const divergences: Record<string, string> = {};
      let answered = 0;
      for (const twin of episode.twin.services.values()) {
        const maker = new RequestMaker(twin, episode.state, 1, episode.agentTokenFor(twin.service.name));
        for (const plan of twin.plans) {
          const request = maker.request(plan);
          const response = await episode.handle(twin.service.name, request, `http://twin${request.path}`);
          answered++;
          expect(response.status).toBeLessThan(500);
          // The wire text is spliced from cached record JSON; it must say exactly what the body says.
          expect(response.text === undefined ? response.body : JSON.parse(response.text)).toEqual(response.body);
          // Operations the spec keys on the same method and path answer the same request; any of their shapes is right.
          const match = twin.route(request.method, request.path);
          const candidates = 'plan' in match ? (match.variants ?? [match.plan]) : [plan];
          const problems = candidates.map((candidate) => conformance(twin, candidate, response));
          const problem =
            response.status >= 400 ? `status ${response.status}` : problems.every(Boolean) ? problems[0] : undefined;
          if (problem) {
            divergences[plan.operation.id] = problem;
          }
        }
      }
      const randomDivergences: string[] = [];
      // Then more random requests per operation (after the check above, so their writes cannot change its state):
      // whatever they hold, the twin answers without a server error, and every success is in the spec's shape.
      for (const twin of episode.twin.services.values()) {
        const maker = new RequestMaker(twin, episode.state, 1, episode.agentTokenFor(twin.service.name));
        for (const plan of twin.plans) {
          for (let attempt = 1; attempt <= 3; attempt++) {
            const more = maker.request(plan, attempt);
            const answer = await episode.handle(twin.service.name, more, `http://twin${more.path}`);
            expect({ operation: plan.operation.id, serverError: answer.status >= 500 }).toEqual({
              operation: plan.operation.id,
              serverError: false,
            });
            const matched = twin.route(more.method, more.path);
            const shapes = 'plan' in matched ? (matched.variants ?? [matched.plan]) : [plan];
            const verdicts = shapes.map((candidate) => conformance(twin, candidate, answer));
            if (answer.status < 400 && verdicts.every(Boolean)) {
              randomDivergences.push(`${plan.operation.id}: ${verdicts[0]}`);
            }
          }
        }
      }
      expect(randomDivergences).toEqual([]);
      expect(answered).toBe(episode.twin.model.services.reduce((sum, s) => sum + s.operations.length, 0));
      expect(Object.keys(divergences).sort()).toEqual(Object.keys(knownDivergences[name] ?? {}).sort());
    },
  );

  it.each(specs)('%s: every operation that declares security refuses a call without it', async (_name, file) => {
    const { episode } = await engineFor(file);
    const unguarded: string[] = [];
    for (const twin of episode.twin.services.values()) {
      const maker = new RequestMaker(twin, episode.state, 4);
      for (const plan of twin.plans) {
        const alternatives = operationSecurity(twin.service.document, plan.operation.pointer);
        if (alternatives.length === 0 || alternatives.some((alternative) => alternative.length === 0)) {
          continue;
        }
        const request = maker.request(plan);
        const response = await episode.handle(twin.service.name, request, `http://twin${request.path}`);
        if (response.status !== 401 || !response.headers['www-authenticate']) {
          unguarded.push(`${plan.operation.id}: ${response.status}`);
        }
      }
    }
    expect(unguarded).toEqual([]);
  });

  it.each(specs)('%s: create, get, list and delete round-trip on every inferred resource', async (_name, file) => {
    const { episode } = await engineFor(file);
    for (const twin of episode.twin.services.values()) {
      const maker = new RequestMaker(twin, episode.state, 2, episode.agentTokenFor(twin.service.name));
      for (const shape of twin.shapes) {
        const { create, get, list, delete: remove } = shape.resource.operations;
        const plan = (id: string | undefined) => twin.plans.find((p) => p.operation.id === id);
        const [createPlan, getPlan, listPlan, deletePlan] = [plan(create), plan(get), plan(list), plan(remove)];
        if (!createPlan?.role || !getPlan?.role || !listPlan?.role || !deletePlan?.role) {
          continue;
        }
        const createRequest = maker.request(createPlan);
        const created = await episode.handle(twin.service.name, createRequest, 'http://twin');
        if (created.status >= 400) {
          // The request maker could not make a valid body (an ambiguous schema); the twin refused it correctly.
          continue;
        }
        const held = shape.itemEnvelope
          ? (created.body as Record<string, unknown> | undefined)?.[shape.itemEnvelope]
          : created.body;
        const record = (Array.isArray(held) ? held[0] : held) as Record<string, unknown> | undefined;
        // A create that answers no body (a bare 201/202) is found where the twin put it: its newest record.
        const id = record ? String(record[shape.idField]) : [...episode.state.newestFirst(shape.key)][0];
        const itemPath = (p: typeof getPlan) =>
          createRequest.path.replace(/\/$/, '') +
          p.operation.path.slice(shape.resource.collectionPath.length).replace(/\{[^}]+\}/, encodeURIComponent(id));
        const fetched = await episode.handle(
          twin.service.name,
          { ...maker.request(getPlan), path: itemPath(getPlan), body: undefined },
          'http://twin',
        );
        expect({ resource: shape.key, status: fetched.status }).toEqual({
          resource: shape.key,
          status: getPlan.successStatus,
        });
        expect(conformance(twin, getPlan, fetched)).toBeUndefined();

        const ids = episode.state.ids(shape.key, episode.state.parentOf(shape.key, id));
        expect(ids).toContain(id);

        const deleted = await episode.handle(
          twin.service.name,
          { ...maker.request(deletePlan), path: itemPath(deletePlan), body: undefined },
          'http://twin',
        );
        expect({ resource: shape.key, deleted: deleted.status < 300 }).toEqual({ resource: shape.key, deleted: true });
        const gone = await episode.handle(
          twin.service.name,
          { ...maker.request(getPlan), path: itemPath(getPlan), body: undefined },
          'http://twin',
        );
        expect({ resource: shape.key, status: gone.status }).toEqual({ resource: shape.key, status: 404 });
      }
    }
  });
});
