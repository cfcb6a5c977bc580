import { createLogger } from './logger';
import { createMetrics } from './metrics';
import { kafkajsRequestQueueClass } from './kafkajsRequestQueue';
import { createKafkaBus, fetchWaitFor } from './kafka';

/** kafkajs's scheduling of request-queue checks, as the process has it now. */
const scheduling = () => kafkajsRequestQueueClass()!.prototype.scheduleCheckPendingRequests;

describe('kafka bus', () => {
  it('when the runtime is imported, then kafkajs is left as shipped; when a bus is created, then its idle timer is fixed, once', () => {
    const shipped = scheduling();
    const settings = {
      brokers: ['127.0.0.1:1'],
      clientId: 'test',
      registryUrl: 'http://127.0.0.1:1',
      partitions: 1,
      replicationFactor: 1,
    };
    createKafkaBus({ logger: createLogger('test', 'silent'), metrics: createMetrics('test'), settings });
    const fixed = scheduling();
    expect(fixed).not.toBe(shipped);

    createKafkaBus({ logger: createLogger('test', 'silent'), metrics: createMetrics('test'), settings });
    expect(scheduling()).toBe(fixed);
  });

  it("when a consumer is idle, then its fetch waits a second at the broker, and always well within the watchdog's stall time", () => {
    expect(fetchWaitFor(60_000)).toBe(1_000);
    expect(fetchWaitFor(2_000)).toBe(250);
    expect(fetchWaitFor(100)).toBe(100);
    for (const stallMs of [800, 2_000, 5_000, 60_000, 600_000])
      expect(fetchWaitFor(stallMs) * 4).toBeLessThanOrEqual(stallMs);
  });
});
