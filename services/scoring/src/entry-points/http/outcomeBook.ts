import { randomUUID } from 'node:crypto';
import {
  BadDefinition,
  DEFAULT_BAD_DEFINITION,
  DEFAULT_TIME_ZONE,
  Topics,
  dayIn,
  errorBody,
  type LoanPerformanceView,
  type OutcomeRecorded,
  type OutcomeReport,
} from '@loan/contracts';
import {
  createKeyedLock,
  withTraceContext,
  type Clock,
  type Logger,
  type OutboxEntry,
  type OutboxRelay,
} from '@loan/runtime';
import {
  digestOf,
  partitionOf,
  type LoanDoc,
  type OutcomeRepository,
  type StoredOutcome,
} from '../../data-access/outcomeRepository';
import { basisOf, decideOutcome, type Basis } from '../../domain/outcomes/decide';
import { isBad, replayOutcomes, type LoanState } from '../../domain/outcomes/loanState';
import { cellsOf } from '../../domain/performance/cells';

/** The answer of an outcome call: an HTTP status and the body. */
export interface Answer {
  status: number;
  body: unknown;
}

const refused = (status: number, message: string): Answer => ({ status, body: errorBody(status, message) });

/** The loan's state as the lender reads it. */
export function loanView(applicationId: string, state: LoanState, bad: BadDefinition): LoanPerformanceView {
  return {
    applicationId,
    status: state.status,
    disbursed: { ...state.disbursed },
    tenor: state.tenor,
    instalmentsPaid: [...state.instalmentsPaid],
    currentDaysPastDue: state.currentDaysPastDue,
    maxDaysPastDue: state.maxDaysPastDue,
    ever30: state.first30 !== null,
    ever60: state.first60 !== null,
    ever90: state.first90 !== null,
    restructured: state.restructured,
    defaulted: state.defaulted,
    writtenOff: state.writtenOff,
    bad: isBad(state, bad),
    outcomes: state.outcomes,
    lastDate: state.lastDate,
  };
}

const outcomeView = (outcome: StoredOutcome) => ({
  outcomeId: outcome.outcomeId,
  sequence: outcome.sequence,
  recordedAt: outcome.recordedAt.toISOString(),
  ...outcome.report,
});

const sameCells = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/**
 * The lender's loans and their outcomes: takes an outcome (once per idempotency key, in the
 * loan's order), keeps the loan's state and the lender's counts by cell, and publishes each
 * accepted outcome on `loan.outcomes.v1` through the loan's outbox.
 */
export function createOutcomeBook(deps: {
  repo: OutcomeRepository;
  relay: Pick<OutboxRelay, 'flush'>;
  clock: Clock;
  logger: Logger;
}) {
  const { repo, relay, clock, logger } = deps;
  // One change of a loan at a time in this process: its counts follow its revs in order.
  const lock = createKeyedLock();

  async function badDefinition(clientId: string): Promise<BadDefinition> {
    const stored = BadDefinition.safeParse(await repo.settings(clientId));
    return stored.success ? stored.data : DEFAULT_BAD_DEFINITION;
  }

  /** Brings the lender's counts up to the loan's state (once per rev, whoever retries). */
  async function syncCounts(doc: LoanDoc) {
    if (doc.countedRev >= doc.rev) return;
    const cells = cellsOf({ ...doc.basis.measured, state: doc.state });
    const delta: Record<string, number> = {};
    for (const cell of doc.countedCells) delta[cell] = (delta[cell] ?? 0) - 1;
    for (const cell of cells) delta[cell] = (delta[cell] ?? 0) + 1;
    for (const [cell, n] of Object.entries(delta)) if (n === 0) delete delta[cell];
    if (Object.keys(delta).length > 0) await repo.count(doc, delta);
    await repo.counted(doc, cells);
  }

  function entryOf(clientId: string, applicationId: string, basis: Basis, outcome: StoredOutcome, state: LoanState) {
    const value: OutcomeRecorded = {
      outcomeId: outcome.outcomeId,
      clientId,
      applicationId,
      sequence: outcome.sequence,
      outcome: outcome.report,
      recordedAt: outcome.recordedAt.toISOString(),
      decision: {
        outcome: basis.measured.decision,
        score: basis.measured.score,
        band: basis.measured.band,
        policyVersion: basis.measured.policyVersion,
        reviewed: basis.reviewed,
      },
      loan: {
        status: state.status,
        currentDaysPastDue: state.currentDaysPastDue,
        maxDaysPastDue: state.maxDaysPastDue,
      },
    };
    const entry: OutboxEntry = {
      id: outcome.outcomeId,
      topic: Topics.outcomes,
      key: applicationId,
      headers: withTraceContext(),
      value,
    };
    return entry;
  }

  async function recordOnce(
    clientId: string,
    applicationId: string,
    key: string,
    report: OutcomeReport,
    bad: BadDefinition,
  ): Promise<Answer | null> {
    const digest = digestOf(report);
    const doc = await repo.loan(applicationId);
    if (doc && doc.clientId !== clientId) return refused(404, `Application ${applicationId} not found`);
    const earlier = doc?.outcomes.find((outcome) => outcome.key === key);
    if (doc && earlier) {
      if (earlier.digest !== digest)
        return refused(409, `Idempotency-Key ${key} was used for another outcome of this loan`);
      const states = replayOutcomes(
        doc.outcomes.map((outcome) => outcome.report),
        doc.basis.granted,
      );
      return {
        status: 200,
        body: { outcome: outcomeView(earlier), loan: loanView(applicationId, states[earlier.sequence - 1]!, bad) },
      };
    }
    let basis = doc?.basis;
    // The first outcome finds the decision and what was said of it since (review, offer).
    const grant = doc ? null : await repo.grant(applicationId);
    if (!basis) {
      const analysis = await repo.decidedAnalysis(grant?.analysisId);
      if (!analysis || analysis.clientId !== clientId)
        return refused(404, `Application ${applicationId} not found, or not decided yet`);
      const found = basisOf(analysis, grant);
      if (!found.ok) return refused(found.status, found.reason);
      basis = found.basis;
    }
    const now = clock.now();
    const decided = decideOutcome(doc?.state ?? null, basis, grant, report, dayIn(now, DEFAULT_TIME_ZONE));
    if (!decided.ok) return refused(decided.status, decided.reason);
    const state = decided.state;
    const outcome: StoredOutcome = {
      key,
      digest,
      outcomeId: randomUUID(),
      sequence: (doc?.outcomes.length ?? 0) + 1,
      report,
      recordedAt: now,
    };
    const entry = entryOf(clientId, applicationId, basis, outcome, state);
    const cells = cellsOf({ ...basis.measured, state });
    const rev = (doc?.rev ?? 0) + 1;
    const unchanged = doc ? sameCells(cells, doc.countedCells) && doc.countedRev === doc.rev : false;
    const counts = unchanged
      ? { countedRev: rev, countedCells: doc!.countedCells, countPending: false }
      : { countedRev: doc?.countedRev ?? 0, countedCells: doc?.countedCells ?? [], countPending: true };
    let stored: LoanDoc;
    if (!doc) {
      stored = {
        _id: applicationId,
        clientId,
        analysisId: basis.analysisId,
        partition: partitionOf(applicationId),
        basis,
        outcomes: [outcome],
        state,
        rev,
        changedAt: now,
        ...counts,
        outbox: [entry],
        outboxPending: true,
      };
      if (!(await repo.insertLoan(stored))) return null;
    } else {
      if (!(await repo.appendOutcome(doc, { outcome, state, entries: [entry], counts, now }))) return null;
      stored = { ...doc, outcomes: [...doc.outcomes, outcome], state, rev, changedAt: now, ...counts };
    }
    // Published after the answer if need be: the relay retries, and its sweep finds what is left.
    relay
      .flush(applicationId, [entry])
      .catch((error: unknown) => logger.warn({ err: error, applicationId }, 'outcome publish deferred'));
    await syncCounts(stored);
    return { status: 201, body: { outcome: outcomeView(outcome), loan: loanView(applicationId, state, bad) } };
  }

  return {
    /**
     * Takes one outcome of a loan. 201 with the outcome and the loan's state; the same key and
     * outcome again answer 200 as the first time; the same key with another outcome is a 409.
     * A batch passes the lender's bad definition it read once for all its rows.
     */
    async record(
      clientId: string,
      applicationId: string,
      key: string,
      report: OutcomeReport,
      bad?: BadDefinition,
    ): Promise<Answer> {
      const definition = bad ?? (await badDefinition(clientId));
      return lock(applicationId, async () => {
        for (let attempt = 0; attempt < 5; attempt++) {
          const answer = await recordOnce(clientId, applicationId, key, report, definition);
          if (answer) return answer;
        }
        return refused(409, 'The loan changed at the same time; retry the request');
      });
    },

    /** The loan's state and its outcomes, in order. */
    async loan(clientId: string, applicationId: string): Promise<Answer> {
      const doc = await repo.loan(applicationId);
      if (!doc || doc.clientId !== clientId)
        return refused(404, `No outcome was reported for application ${applicationId}`);
      const bad = await badDefinition(clientId);
      return {
        status: 200,
        body: { loan: loanView(applicationId, doc.state, bad), outcomes: doc.outcomes.map(outcomeView) },
      };
    },

    badDefinition,

    /** Brings up the counts of loans a crash left behind. */
    async sweepCounts(limit = 500): Promise<number> {
      const pending = await repo.pendingCounts(limit);
      for (const doc of pending)
        await lock(doc._id, async () => {
          const fresh = await repo.loan(doc._id);
          if (fresh) await syncCounts(fresh);
        });
      return pending.length;
    },
  };
}
export type OutcomeBook = ReturnType<typeof createOutcomeBook>;
