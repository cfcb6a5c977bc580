import { Topics } from '@loan/contracts';
import type { KafkaBus } from './kafka';

/** Creates every topic of the contracts that does not exist yet (the clients topic compacted). */
export async function ensureContractTopics(bus: Pick<KafkaBus, 'ensureTopics'>): Promise<void> {
  const { clients, ...rest } = Topics;
  await bus.ensureTopics(Object.values(rest));
  await bus.ensureTopics([clients], { compacted: true });
}
