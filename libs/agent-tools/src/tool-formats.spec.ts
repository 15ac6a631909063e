import { episodeVerbTools } from './episode-verbs';
import type { ToolDefinition } from './tool-contract';
import { openaiStrictAllows, toolsAs } from './tool-formats';

const tool = (inputSchema: Record<string, unknown>): ToolDefinition => ({
  name: 'desk_get_ticket',
  description: 'Get a ticket',
  inputSchema,
  annotations: { title: 'Get', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  target: { kind: 'operation', service: 'desk', operationId: 'getTicket', method: 'get', path: '/t', arguments: [] },
});

const closed = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'the id' },
    when: { type: ['string', 'null'], format: 'date' },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
  },
  required: ['id', 'when', 'tags'],
  additionalProperties: false,
};

describe(toolsAs.name, () => {
  it('lists MCP tools with name, title, description, schema and annotations', () => {
    expect(toolsAs('mcp', [tool(closed)])).toEqual([
      {
        name: 'desk_get_ticket',
        title: 'Get',
        description: 'Get a ticket',
        inputSchema: closed,
        annotations: tool(closed).annotations,
      },
    ]);
  });

  it('lists OpenAI Chat and Responses functions, strict only where the schema allows it', () => {
    const open = { ...closed, required: ['id'] };
    expect(toolsAs('openai_chat', [tool(closed), tool(open)])).toEqual([
      {
        type: 'function',
        function: { name: 'desk_get_ticket', description: 'Get a ticket', parameters: closed, strict: true },
      },
      {
        type: 'function',
        function: { name: 'desk_get_ticket', description: 'Get a ticket', parameters: open, strict: false },
      },
    ]);
    expect(toolsAs('openai_responses', [tool(closed)])).toEqual([
      { type: 'function', name: 'desk_get_ticket', description: 'Get a ticket', parameters: closed, strict: true },
    ]);
  });

  it('refuses an unknown format', () => {
    expect(() => toolsAs('anthropic' as never, [tool(closed)])).toThrow(/unknown tool format "anthropic"/);
  });
});

describe(openaiStrictAllows.name, () => {
  it.each([
    ['an optional property', { ...closed, required: ['id', 'when'] }],
    ['an open object', { ...closed, additionalProperties: true }],
    ['an object without additionalProperties', { type: 'object', properties: {}, required: [] }],
    ['a nested open object', { ...closed, properties: { ...closed.properties, meta: { type: 'object' } } }],
    ['an unsupported keyword', { ...closed, minProperties: 1 }],
    [
      'a nested unsupported keyword',
      { ...closed, properties: { ...closed.properties, id: { type: 'string', minLength: 1 } } },
    ],
    [
      'an unsupported format',
      { ...closed, properties: { ...closed.properties, id: { type: 'string', format: 'int64' } } },
    ],
    ['allOf', { ...closed, properties: { ...closed.properties, id: { allOf: [{ type: 'string' }] } } }],
    ['an untyped property', { ...closed, properties: { ...closed.properties, id: {} } }],
    ['a root that is not an object', { type: 'array', items: { type: 'string' } }],
  ])('is false for %s', (_, schema) => {
    expect(openaiStrictAllows(schema)).toBe(false);
  });

  it('is true for closed objects and for a tool without arguments, false for an optional argument', () => {
    expect(openaiStrictAllows(closed)).toBe(true);
    const [wait, finish] = episodeVerbTools();
    expect(openaiStrictAllows(finish.inputSchema)).toBe(true);
    expect(openaiStrictAllows(wait.inputSchema)).toBe(false);
  });
});
