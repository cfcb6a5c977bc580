import { Topics, type CommandReply } from '@loan/contracts';
import {
  ServiceError,
  createKeyedLock,
  isSealed,
  toOutboxEntries,
  type Clock,
  type OutboxEntry,
  type OutboxRelay,
  type Sealer,
} from '@loan/runtime';
import { LRUCache } from 'lru-cache';
import type { Application, Effect, Outcome } from '../domain/application';
import { linksClosedBy, type LinksClosedReason } from '../domain/linksClosed';
import { offerMadeBy } from '../domain/respondToOffer/decide';
import { withRetention } from '../domain/retainRecords/decide';
import type { ApplicationRepository, Stored } from './applicationRepository';

const MAX_CONFLICT_RETRIES = 10;
/** Applications whose last write by this process is remembered (a few KB each). */
const REMEMBERED_APPLICATIONS = 1_000;

export type Change = { state: Application; effects: Effect[] } | null;
type FactEffect = Extract<Effect, { kind: 'fact' }>['fact'];
/** What a command comes to: its result, or a refusal the gateway maps to an HTTP status. */
export type Answer =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; code: Extract<CommandReply, { ok: false }>['code']; message: string };

export const notFound = (): Answer => ({ ok: false, code: 'NOT_FOUND', message: 'Application not found' });

/**
 * Load, decide, persist (state and outbox in one single-document write), publish: how every
 * change of an application is made, one at a time per application within this process.
 *
 * Each application as this process last wrote it is remembered, so that its next change here
 * need not read it back. A remembered state is only ever the starting point of a write
 * conditional on its revision: when another replica wrote since, the write misses and the
 * change is decided again on a fresh read. A decision that ends without a write (nothing to
 * do, a refusal) is also taken again on a fresh read, since a stale state could be the reason.
 */
export function createApplicationWriter(deps: {
  repo: ApplicationRepository;
  relay: OutboxRelay;
  sealer: Sealer;
  clock: Clock;
  /**
   * Told, once the write is durable, of a change after which the application takes no more
   * accounts (see `linksClosedBy`): the provider's widget sessions are ended then.
   */
  onLinksClosed?: (state: Application, reason: LinksClosedReason) => void;
  /**
   * The lender's record retention, in years, taken when a change ends an application; and the
   * length of one of its years when configured shorter (tests), else calendar years.
   */
  retention?: { yearsOf: (clientId: string) => Promise<number>; yearMs: number | null };
}) {
  const { repo, relay, sealer, clock, onLinksClosed, retention } = deps;

  /** The change with the retention of its records started (an ending) or ended (a resume). */
  async function retained<C extends { state: Application; effects: Effect[] }>(change: C, now: Date): Promise<C> {
    const closes = change.effects.some((e) => e.kind === 'fact' && e.fact.type === 'ApplicationClosed');
    if (!retention) return change;
    const years = closes ? await retention.yearsOf(change.state.clientId) : 0;
    return withRetention(change, years, now, retention.yearMs);
  }

  const closing = (before: Application, after: Application) => {
    const reason = onLinksClosed ? linksClosedBy(before, after) : null;
    if (reason) onLinksClosed?.(after, reason);
  };
  // One change at a time per application (and per idempotency key) within this process.
  const locked = createKeyedLock();
  const remembered = new LRUCache<string, Stored>({ max: REMEMBERED_APPLICATIONS });

  /** The application as remembered (first attempt only) or as the database has it. */
  async function load(applicationId: string, attempt: number): Promise<{ stored: Stored | null; remembered: boolean }> {
    const hit = attempt === 0 ? remembered.get(applicationId) : undefined;
    return hit ? { stored: hit, remembered: true } : { stored: await repo.get(applicationId), remembered: false };
  }

  /**
   * What a write that was conditional on `stored.rev` put into the outbox, when the outbox was
   * empty before it: the relay publishes that without reading the document back.
   */
  const writtenOutbox = (stored: { outboxPending: boolean }, outbox: OutboxEntry[]) =>
    stored.outboxPending ? undefined : outbox;

  /**
   * After a successful write: remembers the state it wrote and publishes its outbox. With
   * `publishing`, the publication is left under way there: the handler then ends once the write
   * is durable, and holds its message's offset until the publication ends (a command's reply
   * goes out beside it). The relay publishes the flushes of one application in the order they
   * were asked for, so the next change of the application may be written meanwhile; a flush
   * that fails makes the relay read the whole outbox at the next one, so the remembered state
   * counts as published from the start.
   */
  async function written(
    stored: Pick<Stored, 'rev' | 'outboxPending'>,
    state: Application,
    outbox: OutboxEntry[],
    publishing?: Promise<void>[],
  ) {
    remembered.set(state.applicationId, { state, rev: stored.rev + 1, outboxPending: false });
    const published = relay.flush(state.applicationId, writtenOutbox(stored, outbox));
    if (publishing) publishing.push(published);
    else await published;
  }

  /**
   * The applicant's names leave this service sealed, like the BVN: as the state holds them, or
   * sealed now when the application was stored before they were.
   */
  function sealedFact(fact: FactEffect): FactEffect {
    if (fact.type !== 'AnalysisRequested') return fact;
    const { firstName, lastName } = fact.applicant;
    const sealed = (value: string) => (isSealed(value) ? value : sealer.seal(value));
    return { ...fact, applicant: { ...fact.applicant, firstName: sealed(firstName), lastName: sealed(lastName) } };
  }

  function toOutbox(state: Application, effects: Effect[], now: Date, correlationId?: string): OutboxEntry[] {
    return toOutboxEntries(
      state,
      effects.map((e) =>
        e.kind === 'event' ? e : { kind: 'fact', topic: Topics.applicationFacts, fact: sealedFact(e.fact) },
      ),
      now,
      correlationId ? { 'x-correlation-id': correlationId } : undefined,
    );
  }

  async function mutateNow(
    applicationId: string,
    decide: (state: Application, now: Date) => Change,
    correlationId?: string,
    publishing?: Promise<void>[],
  ): Promise<Application | null> {
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const { stored, remembered: cached } = await load(applicationId, attempt);
      if (!stored) return null;
      const now = clock.now();
      const decided = decide(stored.state, now);
      if (!decided) {
        if (cached) continue;
        return stored.state;
      }
      const change = await retained(decided, now);
      // Whichever change makes an offer also tells the janitor, in the same write, when it expires.
      const effects = [...change.effects, ...offerMadeBy(stored.state, change.state)];
      const outbox = toOutbox(change.state, effects, now, correlationId);
      if (await repo.replace(change.state, stored.rev, outbox)) {
        await written(stored, change.state, outbox, publishing);
        closing(stored.state, change.state);
        return change.state;
      }
    }
    throw new ServiceError(`Application ${applicationId} kept changing under us`, { retriable: true });
  }

  async function commandMutationNow(
    applicationId: string,
    clientId: string,
    correlationId: string,
    decide: (state: Application, now: Date) => Outcome,
    publishing: Promise<void>[],
  ): Promise<Answer> {
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const loaded = await load(applicationId, attempt);
      const stored = loaded.stored && loaded.stored.state.clientId === clientId ? loaded.stored : null;
      if (!stored) return notFound();
      const now = clock.now();
      const decided = decide(stored.state, now);
      const unchanged = !decided.ok || (decided.effects.length === 0 && decided.state === stored.state);
      if (unchanged && loaded.remembered) continue;
      if (!decided.ok) return { ok: false, code: decided.code, message: decided.message };
      if (unchanged) return { ok: true, result: decided.result };
      const outcome = await retained(decided, now);
      const effects = [...outcome.effects, ...offerMadeBy(stored.state, outcome.state)];
      const outbox = toOutbox(outcome.state, effects, now, correlationId);
      if (await repo.replace(outcome.state, stored.rev, outbox)) {
        await written(stored, outcome.state, outbox, publishing);
        closing(stored.state, outcome.state);
        return { ok: true, result: outcome.result };
      }
    }
    throw new ServiceError(`Application ${applicationId} kept changing under us`, { retriable: true });
  }

  return {
    locked,
    toOutbox,
    /**
     * The application as this process last wrote it, or as the database has it: for checks
     * before a change whose own decision is taken again on a fresh read if the write misses.
     */
    async current(applicationId: string): Promise<Stored | null> {
      return (await load(applicationId, 0)).stored;
    },
    written,
    /** Forgets the application as this process last wrote it (it was deleted). */
    forget(applicationId: string) {
      remembered.delete(applicationId);
    },
    /**
     * Applies a decision to an application, retrying on write conflicts. A concurrent change
     * makes the write miss; the decision is then taken again on the fresh state. With
     * `publishing`, the outbox's publication is left under way there (see `written`).
     */
    mutate(
      applicationId: string,
      decide: (state: Application, now: Date) => Change,
      correlationId?: string,
      publishing?: Promise<void>[],
    ) {
      return locked(applicationId, () => mutateNow(applicationId, decide, correlationId, publishing));
    },
    /** Applies a decision that produced an outcome for a command, retrying on write conflicts. */
    commandMutation(
      applicationId: string,
      clientId: string,
      correlationId: string,
      decide: (state: Application, now: Date) => Outcome,
      publishing: Promise<void>[],
    ): Promise<Answer> {
      return locked(applicationId, () =>
        commandMutationNow(applicationId, clientId, correlationId, decide, publishing),
      );
    },
  };
}
export type ApplicationWriter = ReturnType<typeof createApplicationWriter>;
