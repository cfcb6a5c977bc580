import type { Delivery, DeliveryPolicy, Endpoint } from '../delivery';
import { afterAttempt, planAttempt } from './decide';

const policy: DeliveryPolicy = { retryBaseMs: 10_000, maxRetries: 5, allowPrivate: false };
const t0 = new Date('2025-03-01T09:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

const delivery = (overrides: Partial<Delivery> = {}): Delivery => ({
  deliveryId: 'd1',
  eventId: 'e1',
  event: 'application.failed',
  clientId: 'c1',
  applicationId: 'a1',
  body: '{}',
  eventAt: t0,
  partition: 0,
  seq: 1,
  status: 'PENDING',
  reason: null,
  attempts: [],
  round: { attempts: 0, size: 6 },
  nextAttemptAt: t0,
  version: 0,
  createdAt: t0,
  updatedAt: t0,
  deliveredAt: null,
  ...overrides,
});

const endpoint = (overrides: Partial<Endpoint> = {}): Endpoint => ({
  clientId: 'c1',
  webhookUrl: 'https://hooks.lender.ng/events',
  webhookSecrets: [{ secret: 'sealed', validUntil: null }],
  version: 1,
  ...overrides,
});

describe('deciding an attempt', () => {
  it('when the client has a valid https URL and a secret, then the event is sent', () => {
    const plan = planAttempt(delivery(), endpoint(), t0, policy);
    expect(plan.kind).toBe('send');
  });

  it('when the client has no webhook URL, then the delivery is SKIPPED with reason no_webhook_url', () => {
    const plan = planAttempt(delivery(), endpoint({ webhookUrl: null }), t0, policy);
    expect(plan).toEqual({
      kind: 'settle',
      step: { status: 'SKIPPED', nextAttemptAt: null, reason: 'no_webhook_url', round: { attempts: 0, size: 6 } },
    });
  });

  it('when the URL breaks the rules, then the delivery FAILS at once with the reason and no retry', () => {
    const plan = planAttempt(delivery(), endpoint({ webhookUrl: 'http://hooks.lender.ng/x' }), t0, policy);
    expect(plan).toMatchObject({
      kind: 'settle',
      step: { status: 'FAILED', nextAttemptAt: null, reason: 'url_refused: the webhook URL must use https' },
    });
  });

  it('when the client is not known yet, then the delivery waits one retry base without using an attempt', () => {
    const plan = planAttempt(delivery(), null, at(1_000), policy);
    expect(plan).toEqual({
      kind: 'settle',
      step: { status: 'PENDING', nextAttemptAt: at(11_000), reason: null, round: { attempts: 0, size: 6 } },
    });
  });

  it('when the client is still unknown after a full retry round, then the delivery FAILS as unknown_client', () => {
    const plan = planAttempt(delivery(), null, at(310_000), policy);
    expect(plan).toMatchObject({ kind: 'settle', step: { status: 'FAILED', reason: 'unknown_client' } });
  });

  it('when the client has no secret, then nothing unsigned is sent', () => {
    const plan = planAttempt(delivery(), endpoint({ webhookSecrets: [] }), t0, policy);
    expect(plan).toMatchObject({ kind: 'settle', step: { status: 'FAILED', reason: 'no_webhook_secret' } });
  });
});

describe('after an attempt', () => {
  it('when the receiver answered 2xx, then the delivery is DELIVERED', () => {
    const step = afterAttempt({ round: { attempts: 2, size: 6 }, delivered: true, at: t0, policy });
    expect(step).toEqual({ status: 'DELIVERED', nextAttemptAt: null, reason: null, round: { attempts: 3, size: 6 } });
  });

  it('when attempts keep failing, then retries are due 10, 20, 40, 80 and 160 s after each failure, then FAILED', () => {
    let round = { attempts: 0, size: 6 };
    const waits: number[] = [];
    for (;;) {
      const step = afterAttempt({ round, delivered: false, at: t0, policy });
      round = step.round;
      if (step.status !== 'PENDING') {
        expect(step).toEqual({
          status: 'FAILED',
          nextAttemptAt: null,
          reason: 'retries_exhausted',
          round: { attempts: 6, size: 6 },
        });
        break;
      }
      waits.push(step.nextAttemptAt!.getTime() - t0.getTime());
    }
    expect(waits).toEqual([10_000, 20_000, 40_000, 80_000, 160_000]);
  });

  it('when a single-attempt redelivery fails, then it is FAILED again without retries', () => {
    const step = afterAttempt({ round: { attempts: 0, size: 1 }, delivered: false, at: t0, policy });
    expect(step.status).toBe('FAILED');
  });

  it('when a redelivery of an event that had been delivered fails, then the delivery stays DELIVERED without retries', () => {
    const round = { attempts: 0, size: 1, manual: true };
    const step = afterAttempt({ round, delivered: false, deliveredBefore: true, at: t0, policy });
    expect(step).toEqual({ status: 'DELIVERED', nextAttemptAt: null, reason: null, round: { ...round, attempts: 1 } });
  });

  it('when a redelivery of an event that had never been delivered fails, then it is FAILED again', () => {
    const round = { attempts: 0, size: 1, manual: true };
    const step = afterAttempt({ round, delivered: false, deliveredBefore: false, at: t0, policy });
    expect(step.status).toBe('FAILED');
  });
});
