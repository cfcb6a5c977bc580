/**
 * Kafka topics. Public events go to `loan.events.v1`; everything else is internal and named
 * `loan.<owner>.<what>`, the owner being the service that consumes commands or produces facts.
 */
export const Topics = {
  /** Every public event of spec section 6, keyed by applicationId (or accountId when none). */
  events: 'loan.events.v1',
  /** Commands from the gateway to the applications service. */
  applicationCommands: 'loan.applications.commands',
  /** Provider webhooks, verified by the gateway, keyed by provider account id. */
  providerCallbacks: 'loan.gateway.provider-callbacks',
  /** Client account changes (compacted, keyed by clientId) for the services' projections. */
  clients: 'loan.gateway.clients',
  /** Facts about applications other services need: accounts to enrich, analyses to run. */
  applicationFacts: 'loan.applications.facts',
  /** Per-account enrichment results and their lifecycle, for applications and scoring. */
  enrichmentResults: 'loan.enrichment.results',
  /** Scoring outcomes for the applications service to publish. */
  scoringResults: 'loan.scoring.results',
  /** Deadlines that passed, for the owners to act on. */
  deadlines: 'loan.janitor.deadlines',
  /** Every public event without personal data, ids pseudonymised: the analysts' stream. */
  analytics: 'loan.analytics.v1',
  /** Loan outcomes the lenders reported, as scoring accepted them: keyed by applicationId, no personal data. */
  outcomes: 'loan.outcomes.v1',
} as const;

/** Reply topics are per gateway instance so that a replica only sees its own replies. */
export const replyTopicPrefix = 'loan.gateway.replies.';
export const replyTopicFor = (instanceId: string): string => `${replyTopicPrefix}${instanceId}`;

/** Poison messages of a topic go to its dead-letter topic with the error in a header. */
export const deadLetterTopicFor = (topic: string): string => `${topic}.dlq`;

/**
 * Registry subject for a topic's values. All reply topics share one subject so that a new
 * gateway instance does not register a new schema.
 */
export const subjectFor = (topic: string): string =>
  topic.startsWith(replyTopicPrefix) ? 'loan.gateway.replies-value' : `${topic}-value`;

/**
 * The header that names a fact's type (`AccountLinked`, `AccountEnriched`...) on the internal
 * fact topics, so that a consumer can pass over the kinds it does not act on without decoding
 * them (the runtime's `consume` with `types`).
 */
export const FACT_TYPE_HEADER = 'x-fact-type';
