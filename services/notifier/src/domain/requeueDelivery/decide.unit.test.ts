import type { Delivery } from '../delivery';
import { isReplayable, redeliver, replay } from './decide';

const t0 = new Date('2025-03-01T09:00:00.000Z');
const now = new Date('2025-03-02T09:00:00.000Z');

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
  status: 'FAILED',
  reason: 'retries_exhausted',
  attempts: [],
  round: { attempts: 6, size: 6 },
  nextAttemptAt: null,
  version: 7,
  createdAt: t0,
  updatedAt: t0,
  deliveredAt: null,
  ...overrides,
});

describe('redelivery and replay', () => {
  it.each(['FAILED', 'DELIVERED', 'SKIPPED'] as const)(
    'when a %s delivery is redelivered, then one attempt is due now',
    (status) => {
      const decision = redeliver(delivery({ status }), 'c1', now);
      expect(decision).toMatchObject({
        ok: true,
        delivery: {
          status: 'PENDING',
          reason: null,
          nextAttemptAt: now,
          round: { attempts: 0, size: 1 },
          version: 8,
          body: '{}',
        },
      });
    },
  );

  it('when the delivery is still pending, then a redelivery is refused as already pending', () => {
    const decision = redeliver(delivery({ status: 'PENDING', nextAttemptAt: now }), 'c1', now);
    expect(decision).toMatchObject({ ok: false, code: 'ALREADY_PENDING' });
  });

  it('when the delivery belongs to another client, then it is not found', () => {
    expect(redeliver(delivery(), 'c2', now)).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    expect(redeliver(null, 'c1', now)).toMatchObject({ ok: false, code: 'NOT_FOUND' });
  });

  it('when a replay names a time and an event, then only FAILED deliveries of that event since then are taken', () => {
    expect(isReplayable(delivery(), { since: t0 })).toBe(true);
    expect(isReplayable(delivery(), { since: now })).toBe(false);
    expect(isReplayable(delivery({ status: 'DELIVERED' }), { since: t0 })).toBe(false);
    expect(isReplayable(delivery(), { since: t0, event: 'application.decision' })).toBe(false);
  });

  it('when a delivery is replayed, then it gets a full retry round again', () => {
    expect(replay(delivery(), now, { maxRetries: 5 })).toMatchObject({
      status: 'PENDING',
      round: { attempts: 0, size: 6 },
      nextAttemptAt: now,
    });
  });
});
