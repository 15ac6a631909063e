import { workerCapacity } from './worker-factory';

describe(workerCapacity.name, () => {
  it("keeps every open episode in the worker's cache and a workflow task slot for each, above the SDK's defaults", () => {
    expect(workerCapacity(1)).toEqual({
      maxCachedWorkflows: 100,
      maxConcurrentWorkflowTaskExecutions: 40,
      maxConcurrentActivityTaskExecutions: 100,
    });
    const at64 = workerCapacity(64);
    expect(at64.maxCachedWorkflows).toBeGreaterThanOrEqual(2 * 64);
    expect(at64.maxConcurrentWorkflowTaskExecutions).toBeGreaterThanOrEqual(64);
    expect(at64.maxConcurrentActivityTaskExecutions).toBeGreaterThanOrEqual(4 * 64);
  });
});
