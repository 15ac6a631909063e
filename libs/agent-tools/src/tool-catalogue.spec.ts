import * as fs from 'node:fs';

import Ajv2020 from 'ajv/dist/2020';
import * as yaml from 'js-yaml';

import { ingestStack } from '@libs/stack-ingestion';
import type { StackModel } from '@libs/stack-model';
import { writeBundle } from '@test/support/bundle-fixtures';

import { toolCatalogue } from './tool-catalogue';
import type { ToolDefinition } from './tool-contract';

const longId = `archiveEveryClosedTicketOfTheGivenOrganisationAndNotifyItsAdministratorsByMail`;

const spec = {
  openapi: '3.0.3',
  info: { title: 'Desk', version: '1' },
  servers: [{ url: 'https://desk.example.com/api' }],
  components: {
    schemas: {
      Ticket: {
        type: 'object',
        required: ['id', 'subject'],
        properties: {
          id: { type: 'string' },
          subject: { type: 'string', nullable: true },
          created: { type: 'string', readOnly: true },
          parent: { $ref: '#/components/schemas/Ticket' },
          'x-internal': { type: 'string' },
        },
        'x-vendor': true,
      },
    },
  },
  paths: {
    '/tickets/{id}': {
      parameters: [
        { name: 'id', in: 'path', required: true, description: '  The ticket  ', schema: { type: 'string' } },
      ],
      get: {
        operationId: 'getTicket',
        summary: '  Get a ticket ',
        description: 'One ticket by id.',
        parameters: [{ name: 'Authorization', in: 'header', schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
      put: {
        operationId: 'get_ticket',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Ticket' } } },
        },
        responses: { '200': { description: 'ok' } },
      },
      delete: { operationId: longId, responses: { '204': { description: 'gone' } } },
      head: { operationId: 'headTicket', responses: { '200': { description: 'ok' } } },
    },
    '/tickets/{id}/tags': {
      post: {
        operationId: 'setTags',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'dry_run', in: 'query', schema: { type: 'boolean' } },
          // A credential as a parameter (Slack's way): the endpoint sends the agent's token, the agent never fills it.
          {
            name: 'token',
            in: 'query',
            required: true,
            description: 'Authentication token',
            schema: { type: 'string' },
          },
        ],
        requestBody: { content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
};

const bundle = (): string =>
  writeBundle({
    'mirror.yaml': yaml.dump({
      name: 'desk',
      services: [
        { name: 'desk', spec: 'apis/desk.yaml' },
        { name: 'ledger', schema: 'schemas/ledger.sql' },
      ],
    }),
    'apis/desk.yaml': yaml.dump(spec),
    'schemas/ledger.sql':
      'CREATE TABLE accounts (id serial PRIMARY KEY, holder text NOT NULL, note text, balance numeric NOT NULL DEFAULT 0);\n',
  });

describe(toolCatalogue.name, () => {
  let model: StackModel;
  let folder: string;

  beforeAll(async () => {
    folder = bundle();
    model = (await ingestStack({ kind: 'path', path: folder })).model;
  });

  afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

  const byName = (tools: ToolDefinition[], name: string): ToolDefinition => {
    const tool = tools.find((t) => t.name === name);
    if (!tool) {
      throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(', ')}`);
    }
    return tool;
  };

  it('names operations {service}_{operation} in snake_case, unique and at most 64 characters, verbs last', () => {
    const tools = toolCatalogue(model, ['desk']);
    const names = tools.map((t) => t.name);
    expect(names.slice(0, 2)).toEqual(['desk_get_ticket', expect.stringMatching(/^desk_get_ticket_[0-9a-f]{8}$/)]);
    expect(names.slice(-2)).toEqual(['wait_for_events', 'finish_episode']);
    expect(new Set(names).size).toBe(names.length);
    const long = names.find((n) => n.startsWith('desk_archive'));
    expect(long).toMatch(/^desk_archive_every_closed_ticket_of_the_given_organisat_[0-9a-f]{8}$/);
    expect(long).toHaveLength(64);
    expect(toolCatalogue(model, ['desk'])).toEqual(tools);
  });

  it('flattens path, query and body arguments, prefixing names that clash and resolving references', () => {
    const tools = toolCatalogue(model, ['desk']);
    const put = byName(tools, tools[1].name);
    expect(put.inputSchema).toMatchObject({
      type: 'object',
      required: ['path_id', 'body_id', 'subject'],
      additionalProperties: false,
    });
    const properties = put.inputSchema.properties as Record<string, Record<string, unknown>>;
    // A property named like an extension is a property still; the schema's own extensions go.
    expect(Object.keys(properties)).toEqual(['path_id', 'body_id', 'subject', 'parent', 'x-internal']);
    expect(properties.path_id.description).toBe('The ticket');
    expect(properties.parent.properties).toMatchObject({ parent: { description: 'a Ticket, as above' } });
    expect(properties.subject.type).toEqual(['string', 'null']);
    expect(JSON.stringify(put.inputSchema)).not.toMatch(/\$ref|x-vendor|nullable/);
    expect(put.target).toMatchObject({
      kind: 'operation',
      method: 'put',
      path: '/tickets/{id}',
      contentType: 'application/json',
      arguments: [
        { argument: 'path_id', in: 'path', name: 'id' },
        { argument: 'body_id', in: 'body-field', name: 'id' },
        { argument: 'subject', in: 'body-field', name: 'subject' },
        { argument: 'parent', in: 'body-field', name: 'parent' },
        { argument: 'x-internal', in: 'body-field', name: 'x-internal' },
      ],
    });
    const tags = byName(tools, 'desk_set_tags');
    expect(tags.inputSchema.properties).toEqual({
      id: { type: 'string' },
      dry_run: { type: 'boolean' },
      body: { type: 'array', items: { type: 'string' } },
    });
    expect(tags.inputSchema.required).toEqual(['id']);
  });

  it('keeps the endpoint its own headers and describes from summary and description, trimmed', () => {
    const get = byName(toolCatalogue(model, ['desk']), 'desk_get_ticket');
    expect(Object.keys(get.inputSchema.properties as object)).toEqual(['id']);
    expect(get.description).toBe('Get a ticket\n\nOne ticket by id.\n\n(GET /tickets/{id} on desk)');
    expect(get.annotations.title).toBe('Get a ticket');
  });

  it('derives annotations from HTTP semantics, all closed-world', () => {
    const tools = toolCatalogue(model, ['desk']);
    const hints = (name: string) => {
      const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = byName(tools, name).annotations;
      return { readOnlyHint, destructiveHint, idempotentHint, openWorldHint };
    };
    expect(hints('desk_get_ticket')).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(hints('desk_head_ticket').readOnlyHint).toBe(true);
    expect(hints(tools[1].name)).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(hints(tools.find((t) => t.name.startsWith('desk_archive'))?.name as string)).toMatchObject({
      destructiveHint: true,
    });
    expect(hints('desk_set_tags')).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
  });

  it("gives a data service's tables list, insert, update and delete with the entity's fields", () => {
    const tools = toolCatalogue(model, ['ledger']);
    expect(tools.map((t) => t.name)).toEqual([
      'ledger_list_accounts',
      'ledger_insert_accounts',
      'ledger_update_accounts',
      'ledger_delete_accounts',
      'wait_for_events',
      'finish_episode',
    ]);
    const [list, insert, update, remove] = tools;
    expect(Object.keys(list.inputSchema.properties as object)).toEqual([
      'filters',
      'select',
      'order',
      'limit',
      'offset',
    ]);
    expect(list.annotations.readOnlyHint).toBe(true);
    expect(insert.inputSchema.required).toEqual(['holder']);
    expect((insert.inputSchema.properties as Record<string, unknown>).balance).toEqual({ type: 'number' });
    expect(update.inputSchema.required).toEqual(['filters', 'values']);
    expect(update.target).toMatchObject({
      method: 'patch',
      path: '/accounts',
      headers: { prefer: 'return=representation' },
    });
    expect(remove.annotations.destructiveHint).toBe(true);
  });

  it('keeps only the operations a curated entry names, by id or pattern, in the service order', () => {
    const tools = toolCatalogue(model, [{ service: 'desk', operations: ['set*', 'getTicket'] }, 'ledger']);
    expect(tools.map((t) => t.name).slice(0, 2)).toEqual(['desk_get_ticket', 'desk_set_tags']);
    expect(() => toolCatalogue(model, [{ service: 'desk', operations: ['nothing*'] }])).toThrow(/"nothing\*"/);
    expect(() => toolCatalogue(model, ['teams'])).toThrow(/no service "teams"/);
  });

  it('gives every tool an object schema that is valid JSON Schema', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const tool of toolCatalogue(model, ['desk', 'ledger'])) {
      expect(tool.inputSchema.type).toBe('object');
      expect(ajv.validateSchema(tool.inputSchema)).toBe(true);
    }
  });
});
