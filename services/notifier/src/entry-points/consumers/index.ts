import { Topics } from '@loan/contracts';
import type { InboundMessage } from '@loan/runtime';
import type { createProjectAnalyticsHandler } from './projectAnalytics';
import type { createProjectClientHandler } from './projectClient';
import type { createRecordEventHandler } from './recordEvent';
import type { createScrubBodiesHandlers } from './scrubBodies';

/**
 * The topics the service consumes and the handler of each. Messages arrive parsed and
 * validated against their topic's schema (anything else was dead-lettered by the bus).
 */
export function consumerHandlers(handlers: {
  projectClient: ReturnType<typeof createProjectClientHandler>;
  recordEvent: ReturnType<typeof createRecordEventHandler>;
  scrubBodies: ReturnType<typeof createScrubBodiesHandlers>;
  projectAnalytics: ReturnType<typeof createProjectAnalyticsHandler>;
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

export { createProjectAnalyticsHandler } from './projectAnalytics';
export { createProjectClientHandler } from './projectClient';
export { createRecordEventHandler } from './recordEvent';
export { createScrubBodiesHandlers } from './scrubBodies';
