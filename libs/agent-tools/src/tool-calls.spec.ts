import { parseToolCalls, ToolCallShapeError, toolMessages } from './tool-calls';

const chatCall = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});

describe(parseToolCalls.name, () => {
  it('reads Chat tool calls bare or in the assistant message, arguments parsed', () => {
    const calls = [chatCall('c1', 'desk_get_ticket', '{"id":"7"}'), chatCall('c2', 'finish_episode', '')];
    const expected = {
      shape: 'chat',
      calls: [
        { id: 'c1', name: 'desk_get_ticket', arguments: { id: '7' } },
        { id: 'c2', name: 'finish_episode', arguments: {} },
      ],
    };
    expect(parseToolCalls({ tool_calls: calls })).toEqual(expected);
    expect(parseToolCalls({ message: { role: 'assistant', content: null, tool_calls: calls } })).toEqual(expected);
  });

  it('reads Responses function calls from output or a bare array, skipping other items', () => {
    const output = [
      { type: 'reasoning', id: 'r1', summary: [] },
      { type: 'function_call', id: 'fc1', call_id: 'call_1', name: 'desk_get_ticket', arguments: '{"id":"7"}' },
      { type: 'message', role: 'assistant', content: [] },
    ];
    const expected = { shape: 'responses', calls: [{ id: 'call_1', name: 'desk_get_ticket', arguments: { id: '7' } }] };
    expect(parseToolCalls({ output })).toEqual(expected);
    expect(parseToolCalls(output)).toEqual(expected);
  });

  it('keeps arguments that are not a JSON object as unparsable, for the call to be refused', () => {
    const { calls } = parseToolCalls({
      tool_calls: [chatCall('a', 'x', '{"id": 7'), chatCall('b', 'x', '[1,2]'), chatCall('c', 'x', '"text"')],
    });
    expect(calls.map((c) => c.arguments)).toEqual([
      { unparsable: '{"id": 7' },
      { unparsable: '[1,2]' },
      { unparsable: '"text"' },
    ]);
  });

  it.each([
    ['a string', 'call it', ''],
    ['an object of neither shape', { calls: [] }, ''],
    ['tool_calls that are not an array', { tool_calls: {} }, '/tool_calls'],
    ['a Chat call without a function', { tool_calls: [{ id: 'a' }] }, '/tool_calls/0'],
    ['a Chat call without an id', { tool_calls: [{ function: { name: 'x' } }] }, '/tool_calls/0/id'],
    ['a message without tool_calls', { message: { role: 'assistant', content: 'hi' } }, '/message'],
    ['output that is not an array', { output: 'x' }, '/output'],
    ['a function_call without call_id', { output: [{ type: 'function_call', name: 'x' }] }, '/output/0/call_id'],
    ['a function_call without a name', [{ type: 'function_call', call_id: 'a' }], '/0/name'],
  ])('refuses %s with a pointer', (_, body, pointer) => {
    let caught: unknown;
    try {
      parseToolCalls(body);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ToolCallShapeError);
    expect((caught as ToolCallShapeError).pointer).toBe(pointer);
  });
});

describe(toolMessages.name, () => {
  const observations = [
    { callId: 'c1', name: 'desk_get_ticket', isError: false, structured: { id: '7' }, text: '{"id":"7"}' },
  ];

  it('answers Chat with tool messages and Responses with function_call_output items', () => {
    expect(toolMessages('chat', observations)).toEqual([{ role: 'tool', tool_call_id: 'c1', content: '{"id":"7"}' }]);
    expect(toolMessages('responses', observations)).toEqual([
      { type: 'function_call_output', call_id: 'c1', output: '{"id":"7"}' },
    ]);
  });
});
