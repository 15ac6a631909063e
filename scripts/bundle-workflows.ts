/**
 * Bundles the workflow code once, at the end of `npm run build` (run from dist/ after tsc-alias): every process that
 * plays episodes starts its workers from this file instead of running webpack itself (seconds of CPU per worker).
 */
import * as fs from 'node:fs';

import { DefaultLogger } from '@temporalio/worker';

import { bundleWorkflows, prebuiltWorkflowBundle } from '@libs/episode-worker';

void bundleWorkflows(new DefaultLogger('WARN')).then(({ code }) => fs.writeFileSync(prebuiltWorkflowBundle, code));
