export * from './allowed-values';
export * from './credential-fields';
export * from './personal-data';
export * from './redaction-kinds';
export * from './redactor';
export * from './secret-rules';
export * from './log-redaction';
