import { Topics, deadLetterTopicFor } from '@loan/contracts';
import { ensureContractTopics, type KafkaBus, type Logger } from '@loan/runtime';

/** The topics the janitor consumes; the deadlines topic is the one it produces to. */
export const CONSUMED_TOPICS = [Topics.applicationFacts, Topics.enrichmentResults] as const;

const ATTEMPTS = 6;

/**
 * Creates the contract topics and the dead-letter topics of what the janitor consumes. Right
 * after creating a topic, a KRaft broker may still answer that it does not host it, which
 * fails the creation's wait for leaders; the topics then exist, so trying again settles it.
 */
export async function prepareTopics(bus: Pick<KafkaBus, 'ensureTopics'>, logger: Logger): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ensureContractTopics(bus);
      await bus.ensureTopics(CONSUMED_TOPICS.map(deadLetterTopicFor));
      return;
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      logger.warn({ err: error, attempt }, 'topics not ready yet; trying again');
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    }
  }
}
