import type { BureauOutcome, BureauStatus } from '../bureauReport';

/**
 * What the scorecard reads of a bureau outcome, in Naira. All zero unless the status is HIT.
 * Kept in the audit record so a decision can be re-scored without the report.
 */
export interface BureauSummary {
  status: BureauStatus;
  /** Why the bureau could not answer (UNAVAILABLE only). */
  unavailableReason: string | null;
  bureau: string | null;
  reference: string | null;
  /** The bureau's score, null without a hit or when the file has none. */
  score: number | null;
  scoreBand: string | null;
  maxDaysPastDue: number;
  overdueAmount: number;
  monthlyInstalment: number;
  outstandingBalance: number;
  activeFacilities: number;
  delinquentFacilities: number;
  writtenOffFacilities: number;
  enquiriesLast3m: number;
}

const EMPTY_SUMMARY: Omit<BureauSummary, 'status'> = {
  unavailableReason: null,
  bureau: null,
  reference: null,
  score: null,
  scoreBand: null,
  maxDaysPastDue: 0,
  overdueAmount: 0,
  monthlyInstalment: 0,
  outstandingBalance: 0,
  activeFacilities: 0,
  delinquentFacilities: 0,
  writtenOffFacilities: 0,
  enquiriesLast3m: 0,
};

const fromKobo = (kobo: number): number => kobo / 100;

export const summariseBureau = (outcome: BureauOutcome): BureauSummary => {
  switch (outcome.status) {
    case 'HIT': {
      const { report } = outcome;
      return {
        ...EMPTY_SUMMARY,
        status: 'HIT',
        bureau: report.bureau,
        reference: report.bureau_ref,
        score: report.score?.value ?? null,
        scoreBand: report.score?.band ?? null,
        maxDaysPastDue: report.summary.max_days_past_due,
        overdueAmount: fromKobo(report.summary.total_overdue_kobo),
        monthlyInstalment: fromKobo(report.summary.monthly_instalment_kobo),
        outstandingBalance: fromKobo(report.summary.total_outstanding_kobo),
        activeFacilities: report.summary.active,
        delinquentFacilities: report.summary.delinquent,
        writtenOffFacilities: report.summary.written_off,
        enquiriesLast3m: report.enquiries.last_3m,
      };
    }
    case 'UNAVAILABLE':
      return { ...EMPTY_SUMMARY, status: 'UNAVAILABLE', unavailableReason: outcome.reason };
    case 'NO_HIT':
    case 'NOT_CHECKED':
      return { ...EMPTY_SUMMARY, status: outcome.status };
  }
};

/** A lookup was made and the bureau answered, hit or no hit. */
export const bureauChecked = (bureau: BureauSummary): boolean => bureau.status === 'HIT' || bureau.status === 'NO_HIT';
