export * from './declared-party';
export * from './party-expressions';
export * from './reaction-matching';
export * from './responder-answer';
