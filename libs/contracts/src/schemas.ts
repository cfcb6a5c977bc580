import { z } from 'zod';
import { AnalyticsRecord } from './analytics';
import { ApplicationCommand, CommandReply } from './commands';
import { PublicEventRecord } from './events';
import {
  ApplicationFact,
  ClientChanged,
  DeadlinePassed,
  EnrichmentResult,
  ProviderCallback,
  ScoringResult,
} from './facts';
import { OutcomeRecorded } from './outcomes';
import { Topics, replyTopicPrefix } from './topics';

/** The value schema of every topic: the single source the registry schemas derive from. */
export const TopicSchemas = {
  [Topics.events]: PublicEventRecord,
  [Topics.applicationCommands]: ApplicationCommand,
  [Topics.providerCallbacks]: ProviderCallback,
  [Topics.clients]: ClientChanged,
  [Topics.applicationFacts]: ApplicationFact,
  [Topics.enrichmentResults]: EnrichmentResult,
  [Topics.scoringResults]: ScoringResult,
  [Topics.deadlines]: DeadlinePassed,
  [Topics.analytics]: AnalyticsRecord,
  [Topics.outcomes]: OutcomeRecorded,
} as const;

export type TopicName = keyof typeof TopicSchemas;
export type TopicValue<T extends TopicName> = z.infer<(typeof TopicSchemas)[T]>;

/** The zod schema for a topic's values, reply topics included. */
export function schemaForTopic(topic: string): z.ZodType {
  if (topic.startsWith(replyTopicPrefix)) return CommandReply;
  const schema = (TopicSchemas as Record<string, z.ZodType>)[topic];
  if (!schema) throw new Error(`No schema is defined for topic ${topic}`);
  return schema;
}

/**
 * JSON Schema (draft 2020-12) of a topic's values, as registered in the schema registry.
 * Derived from the zod schema so there is one source of truth.
 */
export function jsonSchemaForTopic(topic: string): Record<string, unknown> {
  return z.toJSONSchema(schemaForTopic(topic), { target: 'draft-7', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
}
