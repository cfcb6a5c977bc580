import { randomUUID } from 'node:crypto';
import type { ApplicationFact } from '@loan/contracts';
import { factsOf } from '../../__tests__/facts';
import type { DeadlineTtls, TrackedDeadline } from '../deadline';
import type { Timeline } from '../timeline';
import { type TrackedFact, applyPlan, trackFact } from './decide';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ttls: DeadlineTtls = {
  no_link: 24 * HOUR,
  no_analyze: 7 * DAY,
  enrichment_timeout: 20 * 60_000,
  analysis_timeout: 5 * 60_000,
  bank_data_retention: 90 * DAY,
  offer_expiry: 0,
  record_retention: 1827 * DAY,
};
const t0 = new Date('2026-11-01T08:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms).toISOString();

/** Plays facts through the decision, keeping the deadlines as the repository does. */
function play(facts: TrackedFact[]) {
  let timeline: Timeline | null = null;
  let deadlines: TrackedDeadline[] = [];
  for (const fact of facts) {
    const plan = trackFact(timeline, fact, ttls);
    if (!plan) continue;
    deadlines = applyPlan(deadlines, plan, new Date()).deadlines;
    timeline = plan.timeline;
  }
  const ofKind = (kind: string) => deadlines.filter((d) => d.kind.startsWith(kind));
  return { timeline, consent: ofKind('consent_') };
}

const accountId = randomUUID();
const consentId = randomUUID();
const app = factsOf();
const base = (when: string) => ({
  factId: randomUUID(),
  clientId: app.clientId,
  applicationId: app.applicationId,
  at: when,
});
/** The consent as applications records it: given at `given`, last used at `used`. */
const recorded = (given: number, used: number): ApplicationFact => ({
  ...base(at(used)),
  type: 'ConsentRecorded',
  accountId,
  consentId,
  givenAt: at(given),
  expiresAt: at(given + 365 * DAY),
  lastUsedAt: at(used),
  lapsesAt: at(used + 180 * DAY),
});
const ended = (when: number): ApplicationFact => ({
  ...base(at(when)),
  type: 'ConsentEnded',
  accountId,
  consentId,
  reason: 'WITHDRAWN',
  endedAt: at(when),
});

describe("a consent's deadlines", () => {
  it('when a consent is recorded at linking, then its expiry and its lapse are armed at the times applications gave', () => {
    const { consent } = play([app.opened(at(0)), recorded(1000, 1000)]);
    expect(consent.map((d) => [d.kind, d.status, d.since, d.dueAt.toISOString(), d.accountId])).toEqual([
      ['consent_expiry', 'ARMED', at(1000), at(1000 + 365 * DAY), accountId],
      ['consent_lapse', 'ARMED', at(1000), at(1000 + 180 * DAY), accountId],
    ]);
  });

  it('when the account is used again, then the earlier lapse is cancelled and a new one armed, the expiry unchanged', () => {
    const { consent } = play([recorded(1000, 1000), recorded(1000, 5000)]);
    expect(consent.map((d) => [d.kind, d.status, d.since])).toEqual([
      ['consent_expiry', 'ARMED', at(1000)],
      ['consent_lapse', 'CANCELLED', at(1000)],
      ['consent_lapse', 'ARMED', at(5000)],
    ]);
  });

  it('when an older record is redelivered after a newer one, then nothing goes back', () => {
    const { consent } = play([recorded(1000, 5000), recorded(1000, 1000)]);
    expect(consent.filter((d) => d.status === 'ARMED').map((d) => [d.kind, d.since])).toEqual([
      ['consent_expiry', at(1000)],
      ['consent_lapse', at(5000)],
    ]);
  });

  it('when the application closes, then its consent deadlines stay armed: a consent outlives the application', () => {
    const { consent } = play([recorded(1000, 2000), app.closed(at(9000))]);
    expect(consent.every((d) => d.status === 'ARMED')).toBe(true);
  });

  it('when the consent ends, then both deadlines are cancelled, and a later record arms nothing again', () => {
    const { consent } = play([recorded(1000, 2000), ended(3000), recorded(1000, 4000)]);
    expect(consent.map((d) => [d.kind, d.status])).toEqual([
      ['consent_expiry', 'CANCELLED'],
      ['consent_lapse', 'CANCELLED'],
    ]);
  });

  describe('when the consent comes with its link', () => {
    /** The link as applications writes it now: the consent on the fact, 180 days of idle lapse. */
    const linkedWith = (given: number): ApplicationFact => {
      const fact = app.linked(accountId, at(given));
      if (fact.type !== 'AccountLinked') throw new Error('not a link');
      return {
        ...fact,
        consent: {
          consentId,
          givenAt: at(given),
          expiresAt: at(given + 365 * DAY),
          lapsesAt: at(given + 180 * DAY),
          idleLapseMs: 180 * DAY,
        },
      };
    };
    const armed = (deadlines: TrackedDeadline[]) =>
      deadlines.filter((d) => d.status === 'ARMED').map((d) => [d.kind, d.since, d.dueAt.toISOString()]);

    it('when the account is linked, then its expiry and lapse are armed at the times the link carries', () => {
      const { consent } = play([app.opened(at(0)), linkedWith(1000)]);
      expect(armed(consent)).toEqual([
        ['consent_expiry', at(1000), at(1000 + 365 * DAY)],
        ['consent_lapse', at(1000), at(1000 + 180 * DAY)],
      ]);
    });

    it("when the account is first enriched, then the lapse moves to 180 days after the enrichment's time; a second enrichment moves nothing", () => {
      const { consent } = play([
        app.opened(at(0)),
        linkedWith(1000),
        app.enriched(accountId, 1, at(5000)),
        app.enriched(accountId, 2, at(9000)),
      ]);
      expect(consent.find((d) => d.kind === 'consent_lapse' && d.since === at(1000))?.status).toBe('CANCELLED');
      expect(armed(consent)).toEqual([
        ['consent_expiry', at(1000), at(1000 + 365 * DAY)],
        ['consent_lapse', at(5000), at(5000 + 180 * DAY)],
      ]);
    });

    it('when the enrichment is read before the link (another topic), then the link arms the lapse from the enrichment', () => {
      const { consent } = play([app.opened(at(0)), app.enriched(accountId, 1, at(5000)), linkedWith(1000)]);
      expect(armed(consent)).toEqual([
        ['consent_expiry', at(1000), at(1000 + 365 * DAY)],
        ['consent_lapse', at(5000), at(5000 + 180 * DAY)],
      ]);
    });

    it('when the enrichment comes late in the consent, then the lapse is never past the expiry', () => {
      const { consent } = play([linkedWith(1000), app.enriched(accountId, 1, at(300 * DAY))]);
      expect(armed(consent)).toEqual([
        ['consent_expiry', at(1000), at(1000 + 365 * DAY)],
        ['consent_lapse', at(300 * DAY), at(1000 + 365 * DAY)],
      ]);
    });

    it('when the consent ended before the enrichment, then the enrichment arms nothing again', () => {
      const { consent } = play([linkedWith(1000), ended(2000), app.enriched(accountId, 1, at(5000))]);
      expect(armed(consent)).toEqual([]);
    });

    it('when the link is redelivered after the application closed, then the consent is still timed from it', () => {
      const { consent } = play([app.opened(at(0)), app.closed(at(500)), linkedWith(1000)]);
      expect(armed(consent).map(([kind]) => kind)).toEqual(['consent_expiry', 'consent_lapse']);
    });
  });
});
