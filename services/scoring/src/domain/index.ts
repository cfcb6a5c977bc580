export * from './affordability';
export * from './scoreApplication';
export * from './scorecard';
