export * from './outcome-judge';
export * from './outcome-sources';
export * from './predicate-evaluation';
export * from './purchase-order-outcome';
