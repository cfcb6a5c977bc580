import type { ClaimRecord, DeliveryRepository } from '../../data-access/deliveryRepository';
import { scheduleEntryOf, type Delivery, type ScheduleEntry } from '../../domain/delivery';
import { createClaimer } from './claims';

const t0 = new Date('2026-11-22T08:00:00.000Z');
const LEASE = 30_000;
const ATTEMPT = 10_000;

const delivery = (
  version = 0,
  status: Delivery['status'] = 'PENDING',
  firstClaim: Delivery['firstClaim'] = null,
): Delivery => ({
  deliveryId: 'd1',
  eventId: 'e1',
  event: 'account.linked',
  clientId: 'c1',
  applicationId: 'a1',
  body: '{}',
  eventAt: t0,
  partition: 0,
  seq: 7,
  status,
  reason: null,
  attempts: [],
  round: { attempts: 0, size: 6 },
  nextAttemptAt: t0,
  version,
  createdAt: t0,
  updatedAt: t0,
  deliveredAt: null,
  firstClaim,
});
const at = (ms: number) => new Date(t0.getTime() + ms);

/** Claims, deliveries and schedule as the database keeps them, counting the reads of deliveries. */
function fakeRepo(stored: Delivery) {
  const claims = new Map<string, ClaimRecord>();
  const reads: string[] = [];
  const repo = {
    claim: async (record: ClaimRecord) =>
      claims.has(record.claimId) ? false : (claims.set(record.claimId, record), true),
    getClaim: async (claimId: string) => claims.get(claimId) ?? null,
    releaseClaims: async (ids: string[]) => void ids.forEach((id) => claims.delete(id)),
    get: async (id: string) => (reads.push(id), id === stored.deliveryId ? stored : null),
    setEntry: async (entry: ScheduleEntry) => void set.push(entry),
    removeEntry: async (id: string) => void removed.push(id),
  };
  const removed: string[] = [];
  const set: ScheduleEntry[] = [];
  return { repo: repo as unknown as DeliveryRepository, claims, reads, removed, set };
}

describe('claiming an attempt', () => {
  it('when this replica recorded the delivery, its insert holding the first claim, then the first attempt is claimed with no claim document and no read', async () => {
    const mine = delivery(0, 'PENDING', { owner: 'me', expiresAt: at(LEASE) });
    const { repo, claims, reads } = fakeRepo(mine);
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE, attemptMs: ATTEMPT });
    const won = await claim(scheduleEntryOf(mine), t0, { delivery: mine, inserted: true });
    expect(won).toEqual({ delivery: mine, claimIds: [], expiresAt: at(LEASE) });
    expect(reads).toEqual([]);
    expect(claims.size).toBe(0);
  });

  it("when less than an attempt's time is left of this replica's first claim, then it is not used: claimed by document, read, and held until it expires", async () => {
    const mine = delivery(0, 'PENDING', { owner: 'me', expiresAt: at(ATTEMPT) });
    const { repo, claims, reads, set } = fakeRepo(mine);
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE, attemptMs: ATTEMPT });
    const entry = { ...scheduleEntryOf(mine), heldBy: null, heldUntil: null };
    expect(await claim(entry, t0, { delivery: mine, inserted: true })).toBeNull();
    expect(reads).toEqual(['d1']);
    expect(claims.size).toBe(0);
    expect(set).toEqual([expect.objectContaining({ deliveryId: 'd1', heldBy: 'me', heldUntil: at(ATTEMPT) })]);
  });

  it('when this replica found stored a delivery whose first claim is its own (its event came again), then that claim is not used a second time', async () => {
    const found = delivery(0, 'PENDING', { owner: 'me', expiresAt: at(LEASE) });
    const { repo, claims, reads } = fakeRepo(found);
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE, attemptMs: ATTEMPT });
    expect(await claim(scheduleEntryOf(found), t0, { delivery: found, inserted: false })).toBeNull();
    expect(reads).toEqual(['d1']);
    expect(claims.size).toBe(0);
  });

  it('when another replica recorded the delivery and its first claim is running, then nothing is claimed, whatever copy is in hand', async () => {
    const theirs = delivery(0, 'PENDING', { owner: 'other', expiresAt: at(5_000) });
    const { repo, claims, reads } = fakeRepo(theirs);
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE, attemptMs: ATTEMPT });
    expect(await claim(scheduleEntryOf(theirs), t0, { delivery: theirs, inserted: false })).toBeNull();
    expect(await claim(scheduleEntryOf(theirs), t0)).toBeNull();
    expect(reads).toEqual(['d1', 'd1']);
    expect(claims.size).toBe(0);
  });

  it("when another replica's first claim has expired, then its first attempt is taken over by the first claim document", async () => {
    const theirs = delivery(0, 'PENDING', { owner: 'other', expiresAt: at(-1) });
    const { repo, claims } = fakeRepo(theirs);
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE, attemptMs: ATTEMPT });
    expect(await claim(scheduleEntryOf(theirs), t0, { delivery: theirs, inserted: false })).toMatchObject({
      claimIds: ['d1:0:0'],
      expiresAt: at(LEASE),
    });
    expect([...claims.keys()]).toEqual(['d1:0:0']);
  });

  it("when the copy in hand carries another replica's first claim and that replica has attempted since, then the copy is not trusted (no claim document proves otherwise)", async () => {
    const { repo, claims, reads } = fakeRepo(delivery(1, 'DELIVERED'));
    const copy = delivery(0, 'PENDING', { owner: 'other', expiresAt: at(-1) });
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE, attemptMs: ATTEMPT });
    expect(await claim(scheduleEntryOf(copy), t0, { delivery: copy, inserted: false })).toBeNull();
    expect(reads).toEqual(['d1']);
    expect(claims.size).toBe(0);
  });

  it('when this replica found the delivery stored (recorded before first claims existed) and wins the first claim of its version, then it goes on without reading the delivery back, and the claim stays', async () => {
    const { repo, claims, reads } = fakeRepo(delivery());
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE, attemptMs: ATTEMPT });
    const won = await claim(scheduleEntryOf(delivery()), t0, { delivery: delivery(), inserted: false });
    expect(won).toMatchObject({ delivery: { deliveryId: 'd1', version: 0 }, claimIds: ['d1:0:0'] });
    expect(reads).toEqual([]);
    expect([...claims.keys()]).toEqual(['d1:0:0']);
  });

  it('when the version was attempted already (its first claim is kept), then the recorded copy is not trusted: the delivery is read, found moved on, and nothing is claimed', async () => {
    const { repo, claims, reads } = fakeRepo(delivery(1));
    // Another replica attempted version 0 a lease ago; its claim was kept.
    claims.set('d1:0:0', {
      claimId: 'd1:0:0',
      deliveryId: 'd1',
      owner: 'other',
      expiresAt: new Date(t0.getTime() - 1),
    });
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE, attemptMs: ATTEMPT });
    expect(await claim(scheduleEntryOf(delivery()), t0, { delivery: delivery(), inserted: false })).toBeNull();
    expect(reads).toEqual(['d1']);
    // The takeover claim it won for nothing is released; the attempted one stays.
    expect([...claims.keys()]).toEqual(['d1:0:0']);
  });

  it('when another replica holds the first claim of the version, then nothing is claimed and nothing is read', async () => {
    const { repo, claims, reads } = fakeRepo(delivery());
    claims.set('d1:0:0', {
      claimId: 'd1:0:0',
      deliveryId: 'd1',
      owner: 'other',
      expiresAt: new Date(t0.getTime() + LEASE),
    });
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE, attemptMs: ATTEMPT });
    expect(await claim(scheduleEntryOf(delivery()), t0, { delivery: delivery(), inserted: false })).toBeNull();
    expect(reads).toEqual([]);
  });

  it("when the entry is stale and the first claim of its version is this replica's own (its attempt has ended), then the entry is dropped at once instead of a lease later", async () => {
    const { repo, claims, removed } = fakeRepo(delivery(1, 'DELIVERED'));
    claims.set('d1:0:0', {
      claimId: 'd1:0:0',
      deliveryId: 'd1',
      owner: 'me',
      expiresAt: new Date(t0.getTime() + LEASE),
    });
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE, attemptMs: ATTEMPT });
    expect(await claim(scheduleEntryOf(delivery()), t0)).toBeNull();
    expect(removed).toEqual(['d1']);
    expect([...claims.keys()]).toEqual(['d1:0:0']);
  });

  it('when the delivery was not recorded here, then it is read after the claim is won', async () => {
    const { repo, reads } = fakeRepo(delivery());
    const claim = createClaimer({ repo, owner: 'me', leaseMs: LEASE, attemptMs: ATTEMPT });
    expect(await claim(scheduleEntryOf(delivery()), t0)).toMatchObject({ delivery: { version: 0 } });
    expect(reads).toEqual(['d1']);
  });
});
