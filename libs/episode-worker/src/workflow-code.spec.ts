import * as fs from 'node:fs';

import { DefaultLogger, Runtime, WorkerPlugin } from '@temporalio/worker';

import { prebuiltWorkflowBundle, workflowBundling, workflowCode } from './worker-factory';

describe(workflowCode.name, () => {
  beforeAll(() => Runtime.install({ logger: new DefaultLogger('WARN') }));

  it('bundles the workflow code once for every worker of a process that has no bundle from the build', async () => {
    // Under jest this file is the source: no build has left a bundle beside it.
    expect(fs.existsSync(prebuiltWorkflowBundle)).toBe(false);
    const [first, second] = await Promise.all([workflowCode(), workflowCode([{ name: 'metrics' }])]);
    expect(first).toEqual({ workflowBundle: { code: expect.stringContaining('episodeWorkflow') } });
    // The same code, not a second webpack run.
    expect((second as typeof first & { workflowBundle: unknown }).workflowBundle).toBe(
      (first as { workflowBundle: unknown }).workflowBundle,
    );
  });

  it('takes a bundle made beforehand, and leaves a plugin that adds workflow modules to bundle its own', async () => {
    expect(await workflowCode([], '/run/workflow-bundle.js')).toEqual({
      workflowBundle: { codePath: '/run/workflow-bundle.js' },
    });
    const tracing = { name: 'tracing', configureBundler: (options: unknown) => options } as WorkerPlugin;
    expect(await workflowCode([tracing], '/run/workflow-bundle.js')).toMatchObject({
      workflowsPath: workflowBundling().workflowsPath,
      bundlerOptions: { webpackConfigHook: expect.any(Function) },
    });
  });
});
