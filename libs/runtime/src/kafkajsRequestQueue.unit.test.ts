import { fixKafkajsIdleTimers, kafkajsRequestQueueClass } from './kafkajsRequestQueue';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

interface Queue {
  pending: unknown[];
  inflight: Map<number, unknown>;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  push(request: unknown): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer | null; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
}

function newQueue(): Queue {
  const RequestQueue = kafkajsRequestQueueClass() as unknown as new (options: object) => Queue;
  return new RequestQueue({
    maxInFlightRequests: 1,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'localhost:9092',
    logger: quiet,
  });
}

/** A request as a kafkajs connection pushes it; `sent` records when it goes on the wire. */
function request(correlationId: number, sent: number[]) {
  const entry = { correlationId, apiKey: 0, apiName: 'Produce', apiVersion: 3, resolve() {}, reject() {} };
  return { entry, expectResponse: true, sendRequest: () => sent.push(correlationId) };
}

const answer = (queue: Queue, correlationId: number) => queue.fulfillRequest({ correlationId, payload: null, size: 0 });

describe('kafkajs request queue timers', () => {
  const queues: Queue[] = [];
  const track = (queue: Queue) => (queues.push(queue), queue);
  afterEach(() => queues.splice(0).forEach((queue) => queue.destroy()));

  it('finds the kafkajs queue this fix is written for', () => {
    expect(kafkajsRequestQueueClass()).not.toBeNull();
  });

  it('kafkajs as shipped keeps a timer going on a queue with nothing waiting (the bug this fixes)', () => {
    const queue = track(newQueue());
    const sent: number[] = [];
    queue.push(request(1, sent));
    answer(queue, 1);
    expect(queue.pending).toHaveLength(0);
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
  });

  describe('fixed', () => {
    beforeAll(() => expect(fixKafkajsIdleTimers()).toBe(true));
    // The queue's timers and Date.now() are the test's: time moves only when it says so.
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('arms no timer once every request is answered', () => {
      const queue = track(newQueue());
      const sent: number[] = [];
      queue.push(request(1, sent));
      answer(queue, 1);
      jest.advanceTimersByTime(20);
      expect(sent).toEqual([1]);
      expect(queue.throttleCheckTimeoutId).toBeNull();
    });

    it('still sends a request that waited for the in-flight slot as soon as the slot frees', () => {
      const queue = track(newQueue());
      const sent: number[] = [];
      queue.push(request(1, sent));
      queue.push(request(2, sent));
      expect(sent).toEqual([1]);
      expect(queue.pending).toHaveLength(1);
      answer(queue, 1);
      expect(sent).toEqual([1, 2]);
      answer(queue, 2);
      expect(queue.pending).toHaveLength(0);
      // The check scheduled while request 2 waited runs once more, and arms nothing after it.
      jest.advanceTimersByTime(30);
      expect(queue.throttleCheckTimeoutId).toBeNull();
    });

    it('sends a request held back by client-side throttling once the throttling ends', () => {
      const queue = track(newQueue());
      const sent: number[] = [];
      queue.maybeThrottle(50);
      queue.push(request(1, sent));
      expect(sent).toEqual([]);
      expect(queue.throttleCheckTimeoutId).not.toBeNull();
      jest.advanceTimersByTime(49);
      expect(sent).toEqual([]);
      jest.advanceTimersByTime(71);
      expect(sent).toEqual([1]);
      answer(queue, 1);
      expect(queue.throttleCheckTimeoutId).toBeNull();
    });
  });
});
