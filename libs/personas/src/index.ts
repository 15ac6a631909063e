export * from './agreement';
export * from './approver';
export * from './concession';
export * from './offer-extraction';
export * from './supplier-replies';
export * from './persona-voice';
export * from './terms';
export * from './reactions/perform-reaction';
