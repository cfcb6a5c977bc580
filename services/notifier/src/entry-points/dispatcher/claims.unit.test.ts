import type { ClaimRecord, DeliveryRepository } from '../../data-access/deliveryRepository';
import { scheduleEntryOf, type Delivery } from '../../domain/delivery';
import { createClaimer } from './claims';

const t0 = new Date('2026-11-22T08:00:00.000Z');
const LEASE = 30_000;

const delivery = (version = 0, status: Delivery['status'] = 'PENDING'): Delivery => ({
  deliveryId: 'd1', eventId: 'e1', event: 'account.linked', clientId: 'c1', applicationId: 'a1', body: '{}', eventAt: t0,
  partition: 0, seq: 7, status, reason: null, attempts: [], round: { attempts: 0, size: 6 }, nextAttemptAt: t0, version,
  createdAt: t0, updatedAt: t0, deliveredAt: null,
});

/** Claims, deliveries and schedule as the database keeps them, counting the reads of deliveries. */
function fakeRepo(stored: Delivery) {
  const claims = new Map<string, ClaimRecord>();
  const reads: string[] = [];
  const repo = {
    claim: async (record: ClaimRecord) => (claims.has(record.claimId) ? false : (claims.set(record.claimId, record), true)),
    getClaim: async (claimId: string) => claims.get(claimId) ?? null,
    releaseClaims: async (ids: string[]) => void ids.forEach((id) => claims.delete(id)),
    get: async (id: string) => (reads.push(id), id === stored.deliveryId ? stored : null),
    setEntry: async () => undefined,
    removeEntry: async (id: string) => void removed.push(id),
  };
  const removed: string[] = [];
  return { repo: repo as unknown as DeliveryRepository, claims, reads, removed };
}

describe('claiming an attempt', () => {
  it('when this replica recorded the delivery and wins the first claim of its version, then it goes on without reading the delivery back, and the claim stays', async () => {
    const { repo, claims, reads } = fakeRepo(delivery());
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE });
    const won = await claim(scheduleEntryOf(delivery()), t0, delivery());
    expect(won).toMatchObject({ delivery: { deliveryId: 'd1', version: 0 }, claimIds: ['d1:0:0'] });
    expect(reads).toEqual([]);
    expect([...claims.keys()]).toEqual(['d1:0:0']);
  });

  it('when the version was attempted already (its first claim is kept), then the recorded copy is not trusted: the delivery is read, found moved on, and nothing is claimed', async () => {
    const { repo, claims, reads } = fakeRepo(delivery(1));
    // Another replica attempted version 0 a lease ago; its claim was kept.
    claims.set('d1:0:0', { claimId: 'd1:0:0', deliveryId: 'd1', owner: 'other', expiresAt: new Date(t0.getTime() - 1) });
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE });
    expect(await claim(scheduleEntryOf(delivery()), t0, delivery())).toBeNull();
    expect(reads).toEqual(['d1']);
    // The takeover claim it won for nothing is released; the attempted one stays.
    expect([...claims.keys()]).toEqual(['d1:0:0']);
  });

  it('when another replica holds the first claim of the version, then nothing is claimed and nothing is read', async () => {
    const { repo, claims, reads } = fakeRepo(delivery());
    claims.set('d1:0:0', { claimId: 'd1:0:0', deliveryId: 'd1', owner: 'other', expiresAt: new Date(t0.getTime() + LEASE) });
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE });
    expect(await claim(scheduleEntryOf(delivery()), t0, delivery())).toBeNull();
    expect(reads).toEqual([]);
  });

  it('when the entry is stale and the first claim of its version is this replica\'s own (its attempt has ended), then the entry is dropped at once instead of a lease later', async () => {
    const { repo, claims, removed } = fakeRepo(delivery(1, 'DELIVERED'));
    claims.set('d1:0:0', { claimId: 'd1:0:0', deliveryId: 'd1', owner: 'me', expiresAt: new Date(t0.getTime() + LEASE) });
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE });
    expect(await claim(scheduleEntryOf(delivery()), t0)).toBeNull();
    expect(removed).toEqual(['d1']);
    expect([...claims.keys()]).toEqual(['d1:0:0']);
  });

  it('when the delivery was not recorded here, then it is read after the claim is won', async () => {
    const { repo, reads } = fakeRepo(delivery());
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE });
    expect(await claim(scheduleEntryOf(delivery()), t0)).toMatchObject({ delivery: { version: 0 } });
    expect(reads).toEqual(['d1']);
  });
});
