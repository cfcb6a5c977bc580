/**
 * Scoring was asked for without any enriched account. The caller should have failed the
 * application before scoring (spec: `application.failed`); trying again cannot help.
 */
export class NoEnrichedAccountsError extends Error {
  readonly code = 'NO_ENRICHED_ACCOUNTS';
  readonly retriable = false;

  constructor(applicantId: string) {
    super(`No enriched accounts to score for applicant ${applicantId}`);
    this.name = 'NoEnrichedAccountsError';
  }
}
