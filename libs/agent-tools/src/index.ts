export * from './tool-contract';
export { toolCatalogue } from './tool-catalogue';
export { argumentProblems } from './argument-problems';
export { callOperation, type OperationEndpoint, type OperationObservation } from './operation-call';
export { openaiStrictAllows, toolFormats, toolsAs, type ToolFormat } from './tool-formats';
export { parseToolCalls, ToolCallShapeError, toolMessages, type ToolCallShape } from './tool-calls';
export { maxToolNameLength } from './tool-naming';
