/**
 * The pure reading of an account, importable as `@loan/enrichment/domain` without loading the
 * service: what other workspaces (scoring's golden table) need to enrich provider data exactly
 * as this service does.
 */
export { buildEnrichedAccount, type EnrichmentInputs } from './buildEnrichedAccount/buildEnrichedAccount';
export { looksLikeIncome } from './buildEnrichedAccount/providerResults';
