import type { DeliveryRepository } from '../../data-access/deliveryRepository';
import { firstClaimOf, scheduleEntryOf, type Delivery, type ScheduleEntry } from '../../domain/delivery';

/** An attempt this replica holds: the delivery it is for, and its claims. */
export interface Claim {
  delivery: Delivery;
  /**
   * The claim this replica won (released only if it goes unused; earlier takeovers' stay);
   * none when it holds the first claim its insert of the delivery took.
   */
  claimIds: string[];
  expiresAt: Date;
  /** The delivery is not on the schedule (a first attempt right after it was recorded here). */
  unscheduled?: boolean;
}

const MAX_TAKEOVERS = 8;

const claimIdOf = (entry: ScheduleEntry, takeover: number) => `${entry.deliveryId}:${entry.version}:${takeover}`;

/**
 * Claims the next attempt of a scheduled delivery. The claim is the insert of
 * `<delivery>:<version>:<takeover>`: one replica wins it, the others see a duplicate. A claim
 * past its expiry belongs to a replica that died mid-attempt; the next takeover number is then
 * up for claiming. The winner reads the delivery again and goes on only if it is still pending,
 * due, and at the version the schedule named: anything else means the schedule was stale, and
 * it is brought back in line with the delivery (and the claim, unused, is released).
 *
 * The first attempt of a delivery is claimed by the insert that records it (`firstClaim`, on
 * version 0): the recording replica makes it with the delivery in hand, with no claim document
 * and no read, while at least an attempt's time (`attemptMs`) of that claim is left. Everyone
 * else, and the recorder once that time has passed, claims version 0 by documents as any other
 * version, and goes on only once the first claim has expired: a delivery read with a first claim
 * still running is held by its recorder, and its entry is made to say so, so that no replica
 * tries again before the claim ends. A first claim that expired belongs to a recorder that died
 * (or let it go), and the document claims take over from it as from an expired claim document.
 *
 * The claims of attempts that ran are kept (until `pruneClaims`, a day later): so the first
 * claim document of a version, `<delivery>:<version>:0`, can be won only while nobody has
 * attempted that version under a claim document, and a delivery can leave a version only
 * through an attempt under a claim of it (a manual redelivery starts from a settled delivery,
 * which was attempted). Winning it for a delivery this replica read when it handled its event
 * again therefore proves the stored delivery is still the one in hand, unless that version had a
 * first claim (whose attempt needs no document): it is then used without reading it back.
 */
export function createClaimer(deps: {
  repo: DeliveryRepository;
  owner: string;
  leaseMs: number;
  /** How long an attempt may take (the webhook timeout): a claim with less left is not used. */
  attemptMs: number;
}) {
  const { repo } = deps;

  /** Makes the schedule entry say what the delivery says. */
  async function realign(entry: ScheduleEntry, delivery: Delivery | null, now: Date): Promise<void> {
    if (delivery && delivery.status === 'PENDING') {
      const wanted = scheduleEntryOf(delivery);
      if (wanted.version !== entry.version || wanted.nextAttemptAt.getTime() !== entry.nextAttemptAt.getTime()) {
        await repo.setEntry(wanted);
      }
      return;
    }
    // An entry ahead of its delivery is a redelivery being written, and an entry without one an
    // event being recorded (both are written at once): left alone for one lease.
    const writeUnderWay = delivery === null || entry.version > delivery.version;
    if (writeUnderWay && now.getTime() < entry.nextAttemptAt.getTime() + deps.leaseMs) return;
    await repo.removeEntry(entry.deliveryId);
  }

  const isCurrent = (delivery: Delivery | null, entry: ScheduleEntry, now: Date): delivery is Delivery =>
    delivery !== null &&
    delivery.status === 'PENDING' &&
    delivery.version === entry.version &&
    (delivery.nextAttemptAt?.getTime() ?? Infinity) <= now.getTime();

  /**
   * `known`: the delivery as this replica's insert recorded it (`inserted`, once: its first
   * claim is used by that one call), or as it found it stored when it handled its event again.
   */
  return async function claim(
    entry: ScheduleEntry,
    now: Date,
    known?: { delivery: Delivery; inserted: boolean },
  ): Promise<Claim | null> {
    const recorded = known?.delivery;
    const mine = known?.inserted ? firstClaimOf(known.delivery) : null;
    if (
      recorded &&
      mine &&
      mine.owner === deps.owner &&
      mine.expiresAt.getTime() - now.getTime() > deps.attemptMs &&
      isCurrent(recorded, entry, now)
    ) {
      return { delivery: recorded, claimIds: [], expiresAt: mine.expiresAt };
    }
    const expiresAt = new Date(now.getTime() + deps.leaseMs);
    for (let takeover = 0; takeover < MAX_TAKEOVERS; takeover++) {
      const claimId = claimIdOf(entry, takeover);
      if (await repo.claim({ claimId, deliveryId: entry.deliveryId, owner: deps.owner, expiresAt })) {
        const claimIds = [claimId];
        if (takeover === 0 && recorded && !firstClaimOf(recorded) && isCurrent(recorded, entry, now))
          return { delivery: recorded, claimIds, expiresAt };
        const delivery = await repo.get(entry.deliveryId);
        if (isCurrent(delivery, entry, now)) {
          const first = firstClaimOf(delivery);
          if (!first || first.expiresAt.getTime() <= now.getTime()) return { delivery, claimIds, expiresAt };
          // Its recorder may be attempting it: nobody tries again before its claim ends.
          const held = scheduleEntryOf(delivery);
          if (entry.heldBy !== held.heldBy || entry.heldUntil?.getTime() !== held.heldUntil?.getTime())
            await repo.setEntry(held);
        } else {
          await realign(entry, delivery, now);
        }
        await repo.releaseClaims(claimIds);
        return null;
      }
      const held = await repo.getClaim(claimId);
      // Released in the meantime: it was won and not used (the schedule had moved on).
      if (!held) return null;
      if (held.expiresAt.getTime() > now.getTime()) {
        // This replica's own attempt of that version has ended (the dispatcher never claims what
        // it is running): the entry is stale, say put back by a redelivered event while the
        // attempt was settling. Brought in line with the delivery rather than left for a lease.
        if (held.owner === deps.owner) await realign(entry, await repo.get(entry.deliveryId), now);
        return null;
      }
    }
    return null;
  };
}
export type Claimer = ReturnType<typeof createClaimer>;
