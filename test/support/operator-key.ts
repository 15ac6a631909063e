/** The operator key test gateways are started with: what a test sends as the operator, never as an agent. */
export const testOperatorKey = 'test-operator-key-0123456789';

export const operatorHeaders = { authorization: `Bearer ${testOperatorKey}` };
