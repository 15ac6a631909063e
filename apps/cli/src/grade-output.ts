// The grade's summary moved to the episode host, which `run`, `check`, `up` and `rollout` share.
export { rubricJudge, summarizeGrade } from '@libs/episode-host';
