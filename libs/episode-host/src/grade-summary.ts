import type { MirrorConfig } from '@libs/config';
import type { Grade, RubricJudge } from '@libs/graders';
import type { GradeModels } from '@libs/persistence';

/** The rubric judge when one is configured; the deterministic graders need none. */
export const rubricJudge = (config: MirrorConfig): RubricJudge | undefined =>
  config.MIRROR_RUBRIC_LLM_URL
    ? {
        url: config.MIRROR_RUBRIC_LLM_URL,
        model: config.MIRROR_RUBRIC_LLM_MODEL,
        ...(config.MIRROR_RUBRIC_LLM_KEY ? { apiKey: config.MIRROR_RUBRIC_LLM_KEY } : {}),
      }
    : undefined;

/**
 * The models that produced a grade, as its row and its trail entry record them: the rubric judge's when a model
 * judged a rubric (`none` otherwise), and `personas`, who spoke for the counterparties when the episode was played.
 */
export const gradeModels = (grade: Grade, judge: RubricJudge | undefined, personas: string): GradeModels => ({
  judge: judge && grade.rubric && grade.rubric.length > 0 ? `llm:${judge.model}` : 'none',
  personas,
});

/** What `run --json` and `grade --json` print per episode: the contract trainers and reviewers read. */
export const summarizeGrade = (grade: Grade) => ({
  reward: grade.reward,
  passed: grade.passed,
  compliant: grade.violations.critical + grade.violations.major + grade.violations.minor === 0,
  gradeStatus: grade.status,
  policies: grade.policies,
  graderVersion: grade.graderVersion,
  breakdown: grade.breakdown,
  violations: grade.violations,
  verdicts: grade.verdicts.map((v) => ({
    rule: v.rule,
    status: v.status,
    severity: v.severity,
    clause: v.clause,
    kind: v.kind,
    ...(v.milestone ? { milestone: true } : {}),
    evidence: v.evidence,
  })),
  steps: grade.steps,
  infrastructure: grade.infrastructure,
  ...(grade.rubric ? { rubric: grade.rubric } : {}),
});
