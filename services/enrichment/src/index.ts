export * from './config';
export * from './service';
export { buildEnrichedAccount, type EnrichmentInputs } from './domain/buildEnrichedAccount/buildEnrichedAccount';
