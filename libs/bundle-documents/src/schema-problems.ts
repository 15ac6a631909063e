import type { ZodIssue } from 'zod';

import { appendPointer } from './json-pointer';

/** A zod refusal as located problems: each issue at its JSON pointer, one per unknown field. */
export const schemaProblems = (issues: ZodIssue[]): { pointer: string; message: string }[] =>
  issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ pointer: appendPointer('', ...issue.path, key), message: `unknown field "${key}"` }))
      : [{ pointer: appendPointer('', ...issue.path), message: issue.message }],
  );
