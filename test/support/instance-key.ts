/** The instance key test episodes are drawn under: fixed, so a test's seed gives the same task on every run. */
export const testInstanceKey = 'test-instance-key-0123456789abcdef';
