import { Topics } from '@loan/contracts';
import type { InboundMessage } from '@loan/runtime';
import type { projectAnalyticsHandler } from './projectAnalytics';
import type { projectClientHandler } from './projectClient';
import type { recordEventHandler } from './recordEvent';
import type { scrubBodiesHandlers } from './scrubBodies';

/**
 * The topics the service consumes and the handler of each. Messages arrive parsed and
 * validated against their topic's schema (anything else was dead-lettered by the bus).
 */
export function consumerHandlers(handlers: {
  projectClient: ReturnType<typeof projectClientHandler>;
  recordEvent: ReturnType<typeof recordEventHandler>;
  scrubBodies: ReturnType<typeof scrubBodiesHandlers>;
  projectAnalytics: ReturnType<typeof projectAnalyticsHandler>;
}): Record<string, (message: InboundMessage) => Promise<void>> {
  const { projectClient, recordEvent, scrubBodies, projectAnalytics } = handlers;
  return {
    [Topics.clients]: projectClient,
    // One consumer of the events for the deliveries and the analysts' stream: each event is
    // fetched and decoded once. Recording a delivery is a database write (the webhook is sent
    // by the dispatcher, off this path), so neither waits on a lender's endpoint; the offset
    // is committed once both are done and the new delivery's first attempt has settled it or
    // put it on the schedule (`recordEvent`), so a crash repeats them (a delivery is recorded
    // once per event; an analytics record goes out again with the same id).
    [Topics.events]: async (message) => {
      await Promise.all([recordEvent(message).then(() => scrubBodies.onEvent(message)), projectAnalytics(message)]);
    },
    [Topics.deadlines]: scrubBodies.onDeadline,
  };
}

export { projectAnalyticsHandler } from './projectAnalytics';
export { projectClientHandler } from './projectClient';
export { recordEventHandler } from './recordEvent';
export { scrubBodiesHandlers } from './scrubBodies';
