import type { EventName } from '@loan/contracts';

/**
 * Examples shown in the OpenAPI document, one per request, response and event. Each is parsed
 * with the schema it illustrates by the document's tests, so none can drift from the contract.
 */
const applicationId = '3f6c1f1e-8a52-4c1b-9d3e-2b7f0c9a6e41';
const applicantId = '9b2d7c4a-1e8f-4a6b-b3c5-7d9e0f1a2b3c';
const accountId = '5e8a9f0b-2c3d-4e5f-8a9b-0c1d2e3f4a5b';
const eventId = '0d6f3c2b-7a8e-4b9c-9d1e-2f3a4b5c6d7e';
const deliveryId = 'c4d5e6f7-a8b9-4c0d-8e1f-2a3b4c5d6e7f';
const clientId = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const at = '2026-11-20T09:15:27.412Z';
const widgetUrl = 'https://connect.sandbox.example/widget/4c9e2f7a1b';

/** A lender's credit policy: the built-in rules with repayments capped at a quarter of income and one knock-out. */
const policy = {
  name: 'Salaried, tighter affordability',
  bands: {
    thresholds: { LOW_RISK: 85, MEDIUM_RISK: 70, HIGH_RISK: 55 },
    actions: { LOW_RISK: 'APPROVE', MEDIUM_RISK: 'APPROVE', HIGH_RISK: 'REVIEW', VERY_HIGH_RISK: 'DECLINE' },
  },
  affordability: {
    maxDebtServiceRatio: 0.25,
    tenors: [3, 6, 9, 12, 18, 24],
    counterOffers: { enabled: true, minShareOfAsk: 0.3, minAmount: 20_000 },
  },
  loanLimits: { minAmount: 20_000, maxAmount: 2_000_000, maxIncomeMultiple: 4 },
  dataRules: { thinFile: 'REVIEW', bureauUnavailable: 'PROCEED', identityMismatch: 'DECLINE' },
  knockOuts: [
    {
      code: 'HIGH_BETTING',
      feature: 'bettingShareOfIncome',
      operator: '>',
      value: 0.2,
      action: 'DECLINE',
      description: 'Betting takes more than a fifth of income.',
    },
  ],
};
const policyVersion = {
  version: 2,
  status: 'ACTIVE',
  builtin: false,
  challenger: false,
  createdAt: '2026-11-18T14:02:11.000Z',
  activatedAt: '2026-11-19T08:00:00.000Z',
  policy,
};

export const Examples = {
  initiateRequest: {
    firstName: 'Chinedu',
    lastName: 'Okonkwo',
    email: 'chinedu.okonkwo@example.com',
    phone: '08031234567',
    bvn: '22200000001',
    amount: 300000,
    tenor: 6,
    interestRate: 5,
    purpose: 'Stock for a provisions shop',
    idempotencyKey: 'loan-2026-000123',
  },
  initiateCreated: { applicationId, applicantId, widgetUrl, status: 'PENDING_LINKING', resumed: false },
  initiateResumed: { applicationId, applicantId, widgetUrl, status: 'PENDING_LINKING', resumed: true },
  finalizeLinking: {
    applicationId,
    status: 'LINKED',
    message: 'Linking finalized; application.ready_for_analysis follows once every account is enriched',
  },
  analyze: {
    applicationId,
    status: 'PROCESSING',
    message: 'Analysis queued; the result is delivered as application.decision or application.failed',
  },
  linkAccountRequest: { accountId },
  linkAccount: {
    applicationId,
    accountId,
    widgetUrl,
    status: 'LINKED',
    message: 'Enrichment restarted for 1 account(s); present the widget to the applicant to re-link',
  },
  decision: {
    score: 89.2,
    decision: 'APPROVED',
    score_band: 'LOW_RISK',
    timestamp: at,
    applicant_id: applicantId,
    approval_details: { approved_amount: 300000, approved_tenor: 6, approved_interest: 5, monthly_payment: 59105.26 },
    counter_offer: null,
    risk_factors: [],
    score_breakdown: {
      total: 89.2,
      cash_flow_health: 18.4,
      income_stability: 17.2,
      debt_service_capacity: 22.1,
      account_behavior: 19,
      credit_history: 12.5,
    },
    explainability: {
      primary_reason: 'Steady salary from one employer covers the instalment more than four times',
      key_strengths: ['Salary paid on the same day for 12 months', 'Never overdrawn'],
      key_weaknesses: [],
    },
    eligible_tenors: [3, 6, 9, 12],
    manual_review_reasons: [],
    regulatory_compliance: {
      thin_file: false,
      identity_verified: true,
      credit_bureau_checked: true,
      affordability_assessed: true,
    },
    scorecard_version: '2026.11-2',
    policy_version: 2,
  },
  delivery: {
    id: deliveryId,
    eventId,
    event: 'application.decision',
    applicationId,
    status: 'FAILED',
    reason: 'retries_exhausted',
    attempts: [
      { at: '2026-11-20T09:15:28.003Z', statusCode: 503, error: null, durationMs: 84, manual: false },
      {
        at: '2026-11-20T09:15:38.120Z',
        statusCode: null,
        error: 'timeout after 10000 ms',
        durationMs: 10001,
        manual: false,
      },
    ],
    nextAttemptAt: null,
    createdAt: '2026-11-20T09:15:27.500Z',
    updatedAt: '2026-11-20T09:20:38.121Z',
    deliveredAt: null,
  },
  applicationsCsv:
    'application_id,applicant_id,applicant_name,status,created_at,amount_requested,tenor_requested_months,linked_accounts,score,score_band,decision,decided_at,terms,terms_amount,terms_tenor_months,terms_interest_percent_monthly,terms_monthly_payment,review_status,review_outcome\r\n' +
    `${applicationId},${applicantId},Chinedu Okonkwo,COMPLETED,2026-11-20T09:02:11.000Z,300000,6,1,81.5,LOW_RISK,APPROVED,2026-11-20T09:15:27.412Z,approved,300000,6,5,59105,,\r\n`,
  replayRequest: { since: '2026-11-20T00:00:00Z', event: 'application.decision', limit: 100 },
  replayResult: { count: 3, more: false },
  policy,
  policyVersion,
  policyList: {
    active: policyVersion,
    challenger: null,
    versions: [
      {
        ...policyVersion,
        version: 0,
        status: 'RETIRED',
        builtin: true,
        createdAt: null,
        activatedAt: null,
        policy: { ...policy, name: 'Built-in policy' },
      },
      policyVersion,
    ],
  },
  policyCreated: { version: 3, status: 'DRAFT', policy },
  simulateRequest: { limit: 500 },
  simulation: {
    evaluated: 412,
    current: { APPROVED: 251, COUNTER_OFFER: 63, MANUAL_REVIEW: 58, DECLINED: 40 },
    draft: { APPROVED: 230, COUNTER_OFFER: 71, MANUAL_REVIEW: 58, DECLINED: 53 },
    approvedAmount: { current: 141_250_000, draft: 128_900_000 },
    changed: [
      {
        applicationId,
        from: 'APPROVED',
        to: 'DECLINED',
        reasons: ['Declined (HIGH_BETTING): Betting takes more than a fifth of income.'],
      },
    ],
  },
  challengerReport: {
    challenger: { version: 3, since: '2026-11-19T08:00:00.000Z' },
    evaluated: 57,
    agreed: 55,
    matrix: {
      APPROVED: { APPROVED: 40, COUNTER_OFFER: 2 },
      MANUAL_REVIEW: { MANUAL_REVIEW: 9 },
      DECLINED: { DECLINED: 6 },
    },
    disagreements: [
      {
        applicationId,
        decidedAt: at,
        active: { version: 2, decision: 'APPROVED' },
        challenger: {
          version: 3,
          decision: 'COUNTER_OFFER',
          reasons: ['₦500,000 is affordable over 18 months instead of 12.'],
        },
      },
    ],
  },
  createClientRequest: {
    name: 'Acme Lending',
    webhookUrl: 'https://lender.example/webhooks/loan-analysis',
    providerSecretKey: 'live_sk_provider_key_of_the_lender',
  },
  createClientResponse: {
    clientId,
    apiKey: 'lk_4f0c2a9e7b1d6c3a8e5f2b0d9c7a4e1f',
    webhookSecret: 'whsec_8d3f1a6c9e2b5d7f0a4c8e1b3d6f9a2c',
  },
  client: {
    clientId,
    name: 'Acme Lending',
    webhookUrl: 'https://lender.example/webhooks/loan-analysis',
    providerKeyConfigured: true,
    providerWebhookSecretConfigured: false,
    reviewConfirmationAbove: 250_000,
    timeZone: 'Africa/Lagos',
    recordRetentionYears: 5,
    version: 2,
  },
  updateClientRequest: { webhookUrl: 'https://lender.example/webhooks/v2' },
  auditPage: {
    items: [
      {
        id: '0f6b2d4e-3c1a-4e8b-9d7f-2a5c8e1b4d60',
        at: '2026-11-20T10:04:12.318Z',
        action: 'client.rotate-key',
        actor: 'admin',
        adminName: 'ops-adaeze',
        userId: null,
        clientId,
        details: { changed: [] },
        ip: '203.0.113.7',
        correlationId: 'rotate-acme-key',
      },
      {
        id: '9c3e5a7b-1d2f-4a6c-8e0b-3f5d7a9c1e24',
        at: '2026-11-20T10:01:55.902Z',
        action: 'admin.denied',
        actor: 'admin',
        adminName: null,
        userId: null,
        clientId: null,
        details: { method: 'GET', path: '/admin/clients/acme', reason: 'invalid admin token' },
        ip: '198.51.100.23',
        correlationId: null,
      },
    ],
    nextCursor: 'MTc2MzYzMjkxNTkwMi45YzNlNWE3Yi0xZDJmLTRhNmMtOGUwYi0zZjVkN2E5YzFlMjQ',
  },
  rotateKey: { clientId, apiKey: 'lk_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d' },
  inviteUserRequest: { email: 'ada.obi@acme-lending.example', role: 'credit_officer' },
  createOwnerRequest: { email: 'owner@acme-lending.example' },
  staffUser: {
    userId: '5b1f0c3e-8a2d-4f6b-9c7e-1d3a5f7b9e20',
    email: 'ada.obi@acme-lending.example',
    role: 'credit_officer',
    status: 'active',
    totpEnabled: true,
    createdAt: '2026-11-20T09:15:27.412Z',
    invitationExpiresAt: null,
  },
  staffInvitation: {
    userId: '5b1f0c3e-8a2d-4f6b-9c7e-1d3a5f7b9e20',
    email: 'ada.obi@acme-lending.example',
    role: 'credit_officer',
    status: 'invited',
    totpEnabled: false,
    createdAt: '2026-11-20T09:15:27.412Z',
    invitationExpiresAt: '2026-11-23T09:15:27.412Z',
    invitationUrl: 'http://127.0.0.1:8080/console#/invitation/q3v9Yc0kR2xW7nB4pL8sT1uJ6fH5dA0eZ2mK9gN3rQx',
  },
  updateUserRequest: { role: 'credit_manager' },
  staffSettings: { requireTotp: true },
  rotateWebhookSecretRequest: { overlapSeconds: 86400 },
  rotateWebhookSecret: {
    clientId,
    webhookSecret: 'whsec_1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f',
    previousSecretValidUntil: '2026-11-21T09:15:27.412Z',
  },
  applicationPage: {
    items: [
      {
        applicationId,
        applicantId,
        status: 'COMPLETED',
        applicantName: 'Chinedu Okonkwo',
        amount: 300000,
        tenor: 6,
        accountCount: 1,
        score: 89.2,
        decision: 'APPROVED',
        createdAt: '2026-11-20T09:00:00.000Z',
        updatedAt: at,
      },
    ],
    nextCursor: 'WyIyMDI2LTExLTIwVDA5OjAwOjAwLjAwMFoiLCIzZjZjMWYxZS04YTUyLTRjMWItOWQzZS0yYjdmMGM5YTZlNDEiXQ',
    total: 37,
    totalCapped: false,
  },
  clientSettings: {
    clientId,
    name: 'Acme Lending',
    webhookUrl: 'https://lender.example/webhooks/loan-analysis',
    webhookSecrets: [
      { createdAt: at, validUntil: null },
      { createdAt: '2026-10-01T08:00:00.000Z', validUntil: '2026-11-21T09:15:27.412Z' },
    ],
    providerKeyConfigured: true,
    reviewConfirmationAbove: 250_000,
    timeZone: 'Africa/Lagos',
    recordRetentionYears: 5,
  },
  updateClientSettingsRequest: { webhookUrl: 'https://lender.example/webhooks/v2', reviewConfirmationAbove: 250_000 },
  portfolio: {
    from: '2026-11-01',
    to: '2026-11-03',
    timeZone: 'Africa/Lagos',
    applications: 9,
    byStatus: { PENDING_LINKING: 1, LINKED: 0, PROCESSING: 0, COMPLETED: 7, FAILED: 0, ABANDONED: 1 },
    byDecision: { APPROVED: 4, COUNTER_OFFER: 1, MANUAL_REVIEW: 1, DECLINED: 1 },
    approvalRate: 4 / 7,
    averageApprovedAmount: 437_500,
    scoreBands: [
      { from: 0, to: 9, count: 0 },
      { from: 10, to: 19, count: 0 },
      { from: 20, to: 29, count: 1 },
      { from: 30, to: 39, count: 0 },
      { from: 40, to: 49, count: 0 },
      { from: 50, to: 59, count: 1 },
      { from: 60, to: 69, count: 1 },
      { from: 70, to: 79, count: 1 },
      { from: 80, to: 89, count: 2 },
      { from: 90, to: 100, count: 2 },
    ],
    decisionTime: {
      decided: 7,
      medianSeconds: 42.5,
      p90Seconds: 1_930.2,
      buckets: [
        { upToSeconds: 60, count: 5 },
        { upToSeconds: 300, count: 1 },
        { upToSeconds: 3_600, count: 1 },
        { upToSeconds: 86_400, count: 0 },
        { upToSeconds: null, count: 0 },
      ],
    },
    abandoned: { no_link: 1, no_analyze: 0 },
    days: [
      {
        day: '2026-11-01',
        created: 4,
        byDecision: { APPROVED: 2, COUNTER_OFFER: 1, MANUAL_REVIEW: 0, DECLINED: 0 },
        undecided: 1,
      },
      {
        day: '2026-11-02',
        created: 3,
        byDecision: { APPROVED: 1, COUNTER_OFFER: 0, MANUAL_REVIEW: 1, DECLINED: 1 },
        undecided: 0,
      },
      {
        day: '2026-11-03',
        created: 2,
        byDecision: { APPROVED: 1, COUNTER_OFFER: 0, MANUAL_REVIEW: 0, DECLINED: 0 },
        undecided: 1,
      },
    ],
    webhooks: {
      deliveries: 21,
      byStatus: { PENDING: 1, DELIVERED: 19, FAILED: 1, SKIPPED: 0 },
      deliveredRate: 0.95,
    },
  },
  reviewRequest: {
    outcome: 'COUNTER_OFFER',
    terms: { amount: 400_000, tenor: 12, interestRate: 5 },
    reasonCode: 'INCOME_VERIFIED',
    note: 'Salary confirmed with the employer; a smaller amount fits the verified income.',
    reviewer: 'officer-1042',
  },
  reviewPending: {
    applicationId,
    status: 'COMPLETED',
    review: {
      outcome: 'COUNTER_OFFER',
      status: 'PENDING_CONFIRMATION',
      approval_details: {
        approved_amount: 400_000,
        approved_tenor: 12,
        approved_interest: 5,
        monthly_payment: 45_130.16,
      },
      reasonCode: 'INCOME_VERIFIED',
      note: 'Salary confirmed with the employer; a smaller amount fits the verified income.',
      override: false,
      reviewer: 'officer-1042',
      confirmedBy: null,
      confirmationRequired: true,
      madeAt: '2026-11-20T10:02:00.000Z',
      reviewedAt: null,
    },
  },
  confirmReviewRequest: { reviewer: 'manager-0007' },
  reviewConfirmed: {
    applicationId,
    status: 'COMPLETED',
    review: {
      outcome: 'COUNTER_OFFER',
      status: 'FINAL',
      approval_details: {
        approved_amount: 400_000,
        approved_tenor: 12,
        approved_interest: 5,
        monthly_payment: 45_130.16,
      },
      reasonCode: 'INCOME_VERIFIED',
      note: 'Salary confirmed with the employer; a smaller amount fits the verified income.',
      override: false,
      reviewer: 'officer-1042',
      confirmedBy: 'manager-0007',
      confirmationRequired: true,
      madeAt: '2026-11-20T10:02:00.000Z',
      reviewedAt: '2026-11-20T10:15:41.000Z',
    },
  },
  offerAccepted: {
    applicationId,
    status: 'COMPLETED',
    offer: {
      status: 'ACCEPTED',
      terms: { approved_amount: 300000, approved_tenor: 6, approved_interest: 5, monthly_payment: 59105.26 },
      key_facts: null,
      madeAt: '2026-11-20T09:15:27.412Z',
      expiresAt: '2026-11-27T09:15:27.412Z',
      acceptedAt: '2026-11-20T10:00:00.000Z',
      declinedAt: null,
      coolingOffEndsAt: '2026-11-25T22:59:59.999Z',
      withdrawnAt: null,
    },
  },
  contestRequest: {
    statement:
      'My salary moved to a new employer in September; the October statement shows it. I ask for the decision to be looked at again.',
  },
  contestOpened: {
    applicationId,
    status: 'COMPLETED',
    contest: {
      contestId: '0b8e3a55-4f1d-4c7a-9e2b-6d1f0a3c5e77',
      status: 'OPEN',
      contestedOutcome: 'DECLINED',
      statement:
        'My salary moved to a new employer in September; the October statement shows it. I ask for the decision to be looked at again.',
      openedAt: '2026-11-22T09:30:00.000Z',
      resolvedAt: null,
      priorReview: null,
    },
  },
  reviewPage: {
    items: [
      {
        applicationId,
        applicantId,
        applicantName: 'Chinedu Okonkwo',
        loan: { amount: 500_000, tenor: 12, interestRate: 5 },
        score: 76.4,
        score_band: 'MEDIUM_RISK',
        manual_review_reasons: [
          {
            code: 'BUREAU_UNAVAILABLE',
            description: 'The credit bureau could not be reached; the credit history is unverified',
          },
        ],
        approval_details: {
          approved_amount: 500_000,
          approved_tenor: 12,
          approved_interest: 5,
          monthly_payment: 56_412.71,
        },
        decidedAt: '2026-11-20T09:15:27.412Z',
        ageSeconds: 2790,
        review: null,
      },
    ],
    nextCursor: null,
  },
  providerWebhook: {
    event: 'mono.events.account_updated',
    data: { account: { _id: '65f1c0ffee0123456789abcd' }, meta: { data_status: 'AVAILABLE', ref: applicationId } },
  },
} as const;

/** The webhook body of each event, as it is signed and sent. */
export const EventExamples: Record<
  EventName,
  { id: string; event: EventName; data: Record<string, unknown>; timestamp: string }
> = {
  'account.linked': {
    id: eventId,
    event: 'account.linked',
    data: { applicationId, applicantId, accountId, institution: 'GTBank', accountNumber: '0123456785' },
    timestamp: at,
  },
  'account.enrichment_ready': {
    id: eventId,
    event: 'account.enrichment_ready',
    data: {
      accountId,
      providerAccountId: '65f1c0ffee0123456789abcd',
      applicantId,
      applicationId,
      message: 'Income analysis and statement insights have both completed for this account',
    },
    timestamp: at,
  },
  'application.ready_for_analysis': {
    id: eventId,
    event: 'application.ready_for_analysis',
    data: {
      applicationId,
      applicantId,
      accountCount: 1,
      message: 'All 1 linked account(s) are enriched; the application is ready for analysis',
    },
    timestamp: at,
  },
  'account.enrichment_failed': {
    id: eventId,
    event: 'account.enrichment_failed',
    data: {
      accountId,
      providerAccountId: '65f1c0ffee0123456789abcd',
      applicantId,
      reason: 'enrichment_timeout',
      message:
        'Income analysis and statement insights did not complete in time for this account. Re-link it through link-account to restart enrichment.',
    },
    timestamp: at,
  },
  'application.failed': {
    id: eventId,
    event: 'application.failed',
    data: { applicationId, applicantId, status: 'FAILED', reason: 'No linked account has completed enrichment' },
    timestamp: at,
  },
  'application.abandoned': {
    id: eventId,
    event: 'application.abandoned',
    data: {
      applicationId,
      applicantId,
      reason: 'no_link',
      message:
        'No bank account was linked within the allowed time; the widget address has expired. Initiate a fresh application.',
    },
    timestamp: at,
  },
  'application.decision': {
    id: eventId,
    event: 'application.decision',
    data: {
      applicationId,
      applicantId,
      status: 'COMPLETED',
      score: Examples.decision.score,
      decision: Examples.decision,
    },
    timestamp: at,
  },
  'application.review_completed': {
    id: eventId,
    event: 'application.review_completed',
    data: {
      applicationId,
      applicantId,
      outcome: 'COUNTER_OFFER',
      approval_details: {
        approved_amount: 400_000,
        approved_tenor: 12,
        approved_interest: 5,
        monthly_payment: 45_130.16,
      },
      reviewer: 'officer-1042',
      reasonCode: 'INCOME_VERIFIED',
      note: 'Salary confirmed with the employer; a smaller amount fits the verified income.',
      reviewedAt: at,
    },
    timestamp: at,
  },
  'application.offer_accepted': {
    id: eventId,
    event: 'application.offer_accepted',
    data: {
      applicationId,
      applicantId,
      approval_details: { approved_amount: 300000, approved_tenor: 6, approved_interest: 5, monthly_payment: 59105.26 },
      key_facts: null,
      acceptedAt: '2026-11-20T10:00:00.000Z',
      coolingOffEndsAt: '2026-11-25T22:59:59.999Z',
    },
    timestamp: at,
  },
  'application.offer_declined': {
    id: eventId,
    event: 'application.offer_declined',
    data: { applicationId, applicantId, declinedAt: '2026-11-20T10:00:00.000Z' },
    timestamp: at,
  },
  'application.offer_withdrawn': {
    id: eventId,
    event: 'application.offer_withdrawn',
    data: {
      applicationId,
      applicantId,
      acceptedAt: '2026-11-20T10:00:00.000Z',
      withdrawnAt: '2026-11-23T15:30:00.000Z',
    },
    timestamp: at,
  },
};
