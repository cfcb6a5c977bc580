import { applicantSearchTerms, indexedTerm } from '@loan/contracts';
import { isSealed, rawCollection, type OutboxEntry, type PurposeSealer } from '@loan/runtime';
import { LRUCache } from 'lru-cache';
import { applicationIdFor, type Application, type Review } from '../domain/application';
import type { Consent } from '../domain/consent/decide';
import type { PortfolioRow } from '../domain/portfolio/tally';
import type { ApplicationModel } from './applicationModel';
import { sealIdentity } from './personalData';

export interface Stored {
  state: Application;
  rev: number;
  /** Whether the outbox held unpublished entries when the document was read. */
  outboxPending: boolean;
}

type Doc = Record<string, unknown> & { _id: string; rev: number };

/** Applicants whose search tokens this process remembers (a few hundred bytes each). */
const REMEMBERED_TOKENS = 2_000;

/** The applicant's identity in plain text, as the request that sealed it gave it. */
export interface PlainIdentity {
  firstName: string;
  lastName: string;
  email: string;
  phone?: string | null;
  bvn?: string | null;
}

/** A list's count stops here: past it, the list says "more than" rather than read the lender's whole history. */
export const LIST_COUNT_LIMIT = 10_000;

/** Which of a client's applications a page holds. */
export interface ApplicationListFilter {
  clientId: string;
  /** Empty for every status. */
  statuses: string[];
  /** An applicationId or applicantId to match exactly. */
  q: string | null;
  /** Blind indexes of who applied: for every inner list, the application has one of them. */
  search?: string[][];
  /** Only these decision outcomes; empty or absent for any (or none yet). */
  decisions?: string[];
  /** Created at or after this instant. */
  createdFrom?: Date;
  /** Created before this instant. */
  createdBefore?: Date;
  limit: number;
  after: { createdAt: Date; applicationId: string } | null;
}

/** Which of a client's MANUAL_REVIEW applications a page of the review queue holds. */
export interface ReviewListFilter {
  clientId: string;
  status: 'OPEN' | 'DONE';
  limit: number;
  /** The decision time (ISO, as the decision has it) and id of the previous page's last application. */
  after: { decidedAt: string; applicationId: string } | null;
}

/** A review as stored: its instants back to dates. */
const reviewOf = (review: Review): Review => ({
  ...review,
  madeAt: new Date(review.madeAt),
  reviewedAt: review.reviewedAt ? new Date(review.reviewedAt) : null,
});

/** A consent as stored: its instants back to dates. */
const consentOf = (consent: Consent): Consent => {
  const at = (value: Date | null | undefined) => (value ? new Date(value) : null);
  return {
    consentId: consent.consentId,
    wordingVersion: consent.wordingVersion,
    givenAt: new Date(consent.givenAt),
    expiresAt: new Date(consent.expiresAt),
    lastUsedAt: new Date(consent.lastUsedAt),
    lapsesAt: new Date(consent.lapsesAt),
    endedAt: at(consent.endedAt),
    endReason: consent.endReason ?? null,
    unlinkedAt: at(consent.unlinkedAt),
    bankDataErasedAt: at(consent.bankDataErasedAt),
  };
};

function toState(doc: Doc): Application {
  const d = doc as unknown as Application & { _id: string };
  return {
    applicationId: doc._id,
    clientId: d.clientId,
    applicantId: d.applicantId,
    idempotencyKey: d.idempotencyKey,
    status: d.status,
    applicant: {
      firstName: d.applicant.firstName,
      lastName: d.applicant.lastName,
      email: d.applicant.email,
      phone: d.applicant.phone ?? null,
      bvnSealed: d.applicant.bvnSealed ?? null,
    },
    loan: {
      amount: d.loan.amount,
      tenor: d.loan.tenor,
      interestRate: d.loan.interestRate,
      purpose: d.loan.purpose ?? null,
    },
    providerKeySealed: d.providerKeySealed,
    widgetUrl: d.widgetUrl,
    linkWindowStart: new Date(d.linkWindowStart),
    linkingLocked: Boolean(d.linkingLocked),
    linkingLockedAt: d.linkingLockedAt ? new Date(d.linkingLockedAt) : null,
    readyAnnounced: Boolean(d.readyAnnounced),
    firstLinkedAt: d.firstLinkedAt ? new Date(d.firstLinkedAt) : null,
    accounts: (d.accounts ?? []).map((a) => ({
      ...a,
      linkedAt: new Date(a.linkedAt),
      enrichedAt: a.enrichedAt ? new Date(a.enrichedAt) : null,
      // Accounts enriched before flows were kept have none.
      monthlyFlows: a.monthlyFlows ?? [],
      consent: a.consent?.consentId ? consentOf(a.consent) : null,
    })),
    analysis: d.analysis ? { analysisId: d.analysis.analysisId, requestedAt: new Date(d.analysis.requestedAt) } : null,
    decision: d.decision ?? null,
    repaymentCapacity: d.repaymentCapacity ?? null,
    review: d.review ? reviewOf(d.review) : null,
    contest: d.contest
      ? {
          ...d.contest,
          openedAt: new Date(d.contest.openedAt),
          resolvedAt: d.contest.resolvedAt ? new Date(d.contest.resolvedAt) : null,
          priorReview: d.contest.priorReview ? reviewOf(d.contest.priorReview) : null,
        }
      : null,
    offerResponse: d.offerResponse
      ? {
          ...d.offerResponse,
          at: new Date(d.offerResponse.at),
          coolingOffEndsAt: d.offerResponse.coolingOffEndsAt ? new Date(d.offerResponse.coolingOffEndsAt) : null,
          withdrawnAt: d.offerResponse.withdrawnAt ? new Date(d.offerResponse.withdrawnAt) : null,
        }
      : null,
    offerExpired: d.offerExpired ? { madeAt: new Date(d.offerExpired.madeAt), at: new Date(d.offerExpired.at) } : null,
    failureReason: d.failureReason ?? null,
    abandonReason: d.abandonReason ?? null,
    retainedUntil: d.retainedUntil ? new Date(d.retainedUntil) : null,
    handled: d.handled ?? [],
    createdAt: new Date(d.createdAt),
    updatedAt: new Date(d.updatedAt),
  };
}

/**
 * Loads and stores applications with optimistic concurrency (a revision number per document),
 * through the driver's collection: every field is written as the domain state has it, except
 * that identity still in plain text (read from a document stored before it was sealed) is
 * written sealed. Reads return identity as stored: sealed, or plain in such older documents.
 */
export function createApplicationRepository(model: ApplicationModel, sealer: PurposeSealer) {
  const applications = rawCollection<Doc>(model);
  /**
   * Blind indexes of the applicant's search terms under the current data key, bound to the
   * lender: what a search by name, e-mail, phone or BVN finds the application by, while the
   * identity itself stays sealed. Written with every change, so a document stored before there
   * were indexes, or under a previous key, gets the current ones at its next change.
   */
  const tokensOfIdentity = (clientId: string, identity: PlainIdentity) =>
    applicantSearchTerms({
      firstName: identity.firstName,
      lastName: identity.lastName,
      email: identity.email,
      phone: identity.phone ?? null,
      bvn: identity.bvn ?? null,
    }).map((term) => sealer.blindIndexes(indexedTerm(clientId, term))[0]!);
  /**
   * The tokens of an applicant as sealed (each sealing has an IV of its own, so the sealed
   * identity names one applicant's sealing): every change of an application writes its tokens,
   * and they are worked out once rather than by opening the identity at each write. Blind
   * indexes only, no identity.
   */
  const rememberedTokens = new LRUCache<string, string[]>({ max: REMEMBERED_TOKENS });
  const sealedKeyOf = (clientId: string, applicant: Application['applicant']) =>
    [
      clientId,
      applicant.firstName,
      applicant.lastName,
      applicant.email,
      applicant.phone ?? '',
      applicant.bvnSealed ?? '',
    ].join('\u0000');
  /**
   * `identity`, when given, is the plain text the state's sealed identity was sealed from (the
   * request that opened or resumed the application): its tokens need nothing opened.
   */
  function searchTokensOf(state: Application, identity?: PlainIdentity): string[] {
    const { applicant } = state;
    // Identity stored in plain text before it was sealed is sealed by this write: not remembered.
    const sealedAll =
      isSealed(applicant.firstName) &&
      isSealed(applicant.lastName) &&
      isSealed(applicant.email) &&
      (applicant.phone === null || isSealed(applicant.phone));
    const key = sealedAll ? sealedKeyOf(state.clientId, applicant) : null;
    const known = key ? rememberedTokens.get(key) : undefined;
    if (known) return known;
    const tokens = tokensOfIdentity(
      state.clientId,
      identity ?? {
        firstName: sealer.reveal(applicant.firstName),
        lastName: sealer.reveal(applicant.lastName),
        email: sealer.reveal(applicant.email),
        phone: applicant.phone === null ? null : sealer.reveal(applicant.phone),
        bvn: applicant.bvnSealed ? sealer.open(applicant.bvnSealed) : null,
      },
    );
    if (key) rememberedTokens.set(key, tokens);
    return tokens;
  }
  function toFields(state: Application, identity?: PlainIdentity): Record<string, unknown> {
    const { applicationId: _id, ...rest } = sealIdentity(sealer, state);
    return { ...rest, searchTokens: searchTokensOf(state, identity) };
  }
  return {
    async get(applicationId: string): Promise<Stored | null> {
      const doc = await applications.findOne({ _id: applicationId }, { projection: { outbox: 0 } });
      return doc ? { state: toState(doc), rev: doc.rev, outboxPending: doc.outboxPending === true } : null;
    },

    /** The application an idempotency key opened, found by the id the key names. */
    async getByKey(idempotencyKey: string): Promise<Stored | null> {
      const doc = await applications.findOne({ _id: applicationIdFor(idempotencyKey) }, { projection: { outbox: 0 } });
      return doc && doc.idempotencyKey === idempotencyKey
        ? { state: toState(doc), rev: doc.rev, outboxPending: doc.outboxPending === true }
        : null;
    },

    /**
     * A client's applications, newest first (createdAt, then id), starting after `after`: a
     * position, not an offset, so applications opened meanwhile never shift a later page. One
     * more than `limit` is read to tell whether another page follows.
     */
    async list(
      query: ApplicationListFilter,
    ): Promise<{ items: Application[]; more: boolean; total: number; totalCapped: boolean }> {
      const and: Record<string, unknown>[] = [{ clientId: query.clientId }];
      if (query.statuses.length > 0) and.push({ status: { $in: query.statuses } });
      if (query.q) and.push({ $or: [{ _id: query.q }, { applicantId: query.q }] });
      for (const alternatives of query.search ?? []) and.push({ searchTokens: { $in: alternatives } });
      if (query.decisions?.length) and.push({ 'decision.decision': { $in: query.decisions } });
      if (query.createdFrom) and.push({ createdAt: { $gte: query.createdFrom } });
      if (query.createdBefore) and.push({ createdAt: { $lt: query.createdBefore } });
      // Counted without the page's position: the whole filtered list, up to the limit.
      const counting = applications.countDocuments({ $and: [...and] }, { limit: LIST_COUNT_LIMIT + 1 });
      if (query.after) {
        and.push({
          $or: [
            { createdAt: { $lt: query.after.createdAt } },
            { createdAt: query.after.createdAt, _id: { $lt: query.after.applicationId } },
          ],
        });
      }
      const docs = await applications
        .find({ $and: and }, { projection: { outbox: 0, handled: 0, searchTokens: 0 } })
        .sort({ createdAt: -1, _id: -1 })
        .limit(query.limit + 1)
        .toArray();
      const counted = await counting;
      return {
        items: docs.slice(0, query.limit).map(toState),
        more: docs.length > query.limit,
        total: Math.min(counted, LIST_COUNT_LIMIT),
        totalCapped: counted > LIST_COUNT_LIMIT,
      };
    },

    /**
     * A client's MANUAL_REVIEW applications, oldest decision first (decision time, then id),
     * starting after `after`: OPEN while no review is final, DONE once one is. One more than
     * `limit` is read to tell whether another page follows.
     */
    async listForReview(query: ReviewListFilter): Promise<{ items: Application[]; more: boolean }> {
      const and: Record<string, unknown>[] = [
        { clientId: query.clientId },
        { status: 'COMPLETED' },
        // Referred by the scorecard, or back with the reviewers because the applicant contested it.
        { $or: [{ 'decision.decision': 'MANUAL_REVIEW' }, { 'contest.contestId': { $exists: true } }] },
        query.status === 'DONE' ? { 'review.status': 'FINAL' } : { 'review.status': { $ne: 'FINAL' } },
      ];
      if (query.after) {
        and.push({
          $or: [
            { 'decision.timestamp': { $gt: query.after.decidedAt } },
            { 'decision.timestamp': query.after.decidedAt, _id: { $gt: query.after.applicationId } },
          ],
        });
      }
      const docs = await applications
        .find({ $and: and }, { projection: { outbox: 0, handled: 0, searchTokens: 0 } })
        .sort({ 'decision.timestamp': 1, _id: 1 })
        .limit(query.limit + 1)
        .toArray();
      return { items: docs.slice(0, query.limit).map(toState), more: docs.length > query.limit };
    },

    /**
     * What the portfolio counts of each of a client's applications created in `[from, before)`,
     * one at a time, a batch per round trip: the index range of the lender's list, and only the
     * few fields counted (no applicant, accounts or outbox).
     */
    async *portfolioRows(clientId: string, from: Date, before: Date): AsyncGenerator<PortfolioRow> {
      const cursor = applications
        .find(
          { clientId, createdAt: { $gte: from, $lt: before } },
          {
            projection: {
              status: 1,
              createdAt: 1,
              abandonReason: 1,
              'decision.decision': 1,
              'decision.score': 1,
              'decision.timestamp': 1,
              'decision.approval_details.approved_amount': 1,
            },
          },
        )
        .sort({ createdAt: -1, _id: -1 })
        .batchSize(1_000);
      for await (const doc of cursor) {
        const d = doc as unknown as {
          status: PortfolioRow['status'];
          createdAt: Date;
          abandonReason?: PortfolioRow['abandonReason'];
          decision?: {
            decision?: NonNullable<PortfolioRow['decision']>['outcome'];
            score?: number;
            timestamp?: string;
            approval_details?: { approved_amount?: number };
          } | null;
        };
        const decision = d.decision?.decision
          ? {
              outcome: d.decision.decision,
              score: d.decision.score ?? 0,
              decidedAt: new Date(d.decision.timestamp ?? d.createdAt),
              approvedAmount: d.decision.approval_details?.approved_amount ?? 0,
            }
          : null;
        yield { status: d.status, createdAt: new Date(d.createdAt), decision, abandonReason: d.abandonReason ?? null };
      }
    },

    /**
     * Inserts a new application; a duplicate idempotencyKey makes this throw (code 11000).
     * `identity`: the plain text the state's identity was sealed from, when the caller has it.
     */
    async insert(state: Application, outbox: OutboxEntry[], identity?: PlainIdentity): Promise<void> {
      await applications.insertOne({
        _id: state.applicationId,
        rev: 1,
        ...toFields(state, identity),
        outbox,
        outboxPending: outbox.length > 0,
      });
    },

    /** Writes the new state if nobody changed the document since `rev`; false on a conflict. */
    async replace(state: Application, rev: number, outbox: OutboxEntry[], identity?: PlainIdentity): Promise<boolean> {
      const update: Record<string, unknown> = { $set: { ...toFields(state, identity), rev: rev + 1 } };
      if (outbox.length > 0) {
        (update.$set as Record<string, unknown>).outboxPending = true;
        update.$push = { outbox: { $each: outbox } };
      }
      const res = await applications.updateOne({ _id: state.applicationId, rev }, update);
      return res.modifiedCount === 1;
    },

    /**
     * Deletes the application (its applicant, accounts, decision and everything decided on it)
     * if nobody changed the document since `rev` and its outbox is published; false otherwise.
     */
    async remove(applicationId: string, rev: number): Promise<boolean> {
      const res = await applications.deleteOne({ _id: applicationId, rev, outboxPending: { $ne: true } });
      return res.deletedCount === 1;
    },
  };
}
export type ApplicationRepository = ReturnType<typeof createApplicationRepository>;
