import { lenderDocument } from '../../services/gateway/src/entry-points/http/openapi/document';
import { createLoanClient, type LoanClient } from './client';

/**
 * A method per lender route: the gateway's OpenAPI document (held to the routes it serves by the
 * gateway's own drift test) and the requests this client makes name the same operations, so a
 * route added to the API without a method here fails this test, and so does a method whose
 * route went away.
 */
const ID = 'id-0001';
const ACCOUNT = 'account-0001';

function recordingClient() {
  const calls: string[] = [];
  const client = createLoanClient({
    apiKey: 'lk_test',
    baseUrl: 'http://127.0.0.1:9',
    retry: { maxRetries: 0 },
    fetch: async (input, init) => {
      const url = new URL(String(input));
      calls.push(
        `${String(init?.method).toLowerCase()} ${url.pathname
          .replaceAll(ID, '{id}')
          .replaceAll(ACCOUNT, '{accountId}')
          .replace(/^\/api\/policies\/2(?=\/|$)/, '/api/policies/{version}')}`,
      );
      return new Response(JSON.stringify({ data: [], items: [], nextCursor: null, apiKey: 'lk_new' }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  return { client, calls };
}

const everyMethod: Record<keyof LoanClient, (c: LoanClient) => Promise<unknown>> = {
  initiate: (c) =>
    c.initiate({ firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com', amount: 1, tenor: 1, interestRate: 1 }),
  getApplication: (c) => c.getApplication(ID),
  reportOutcome: (c) => c.reportOutcome(ID, { type: 'REPAID', date: '2026-12-01' }, 'k-1'),
  getLoanOutcomes: (c) => c.getLoanOutcomes(ID),
  uploadOutcomes: (c) => c.uploadOutcomes([]),
  getPerformance: (c) => c.getPerformance(),
  getPerformanceSettings: (c) => c.getPerformanceSettings(),
  setPerformanceSettings: (c) =>
    c.setPerformanceSettings({ bad: { daysPastDue: 90, writtenOff: true, defaulted: true } }),
  finalizeLinking: (c) => c.finalizeLinking(ID),
  analyze: (c) => c.analyze(ID),
  linkAccount: (c) => c.linkAccount(ID),
  listDeliveries: (c) => c.listDeliveries(),
  deliveries: async (c) => {
    for await (const _ of c.deliveries()) void _;
  },
  getDelivery: (c) => c.getDelivery(ID),
  redeliver: (c) => c.redeliver(ID),
  replayDeliveries: (c) => c.replayDeliveries({ since: '2026-11-20T00:00:00.000Z' }),
  listPolicies: (c) => c.listPolicies(),
  createPolicy: (c) =>
    c.createPolicy({
      bands: {
        thresholds: { LOW_RISK: 85, MEDIUM_RISK: 70, HIGH_RISK: 55 },
        actions: { LOW_RISK: 'APPROVE', MEDIUM_RISK: 'APPROVE', HIGH_RISK: 'REVIEW', VERY_HIGH_RISK: 'DECLINE' },
      },
      affordability: {
        maxDebtServiceRatio: 0.1,
        tenors: [12],
        counterOffers: { enabled: true, minShareOfAsk: 0.2, minAmount: 10_000 },
      },
      loanLimits: { minAmount: 0, maxAmount: null, maxIncomeMultiple: null },
      dataRules: { thinFile: 'REVIEW', bureauUnavailable: 'REVIEW', identityMismatch: 'REVIEW' },
      knockOuts: [],
    }),
  getPolicy: (c) => c.getPolicy(2),
  simulatePolicy: (c) => c.simulatePolicy(2, { limit: 100 }),
  activatePolicy: (c) => c.activatePolicy(2),
  setChallenger: (c) => c.setChallenger(2),
  clearChallenger: (c) => c.clearChallenger(),
  challengerReport: (c) => c.challengerReport(),
  listApplications: (c) => c.listApplications({ status: ['LINKED', 'PROCESSING'] }),
  exportApplications: (c) => c.exportApplications({ status: ['COMPLETED'] }),
  applications: async (c) => {
    for await (const _ of c.applications()) void _;
  },
  reviewApplication: (c) =>
    c.reviewApplication(ID, { outcome: 'DECLINED', reasonCode: 'FRAUD_SUSPECTED', reviewer: 'officer-1' }),
  confirmReview: (c) => c.confirmReview(ID, { reviewer: 'manager-1' }),
  getDecisionRecord: (c) => c.getDecisionRecord(ID),
  withdrawConsent: (c) => c.withdrawConsent(ID, ACCOUNT),
  getDeletionReceipt: (c) => c.getDeletionReceipt(ID, ACCOUNT),
  respondToOffer: (c) => c.respondToOffer(ID, { response: 'ACCEPTED' }),
  contestDecision: (c) => c.contestDecision(ID, { statement: 'My salary moved to a new employer' }),
  listReviews: (c) => c.listReviews({ status: 'DONE' }),
  reviews: async (c) => {
    for await (const _ of c.reviews()) void _;
  },
  getPortfolio: (c) => c.getPortfolio({ from: '2026-11-01', to: '2026-11-30' }),
  getClientSettings: (c) => c.getClientSettings(),
  updateClientSettings: (c) => c.updateClientSettings({ webhookUrl: null }),
  rotateApiKey: (c) => c.rotateApiKey(),
  rotateWebhookSecret: (c) => c.rotateWebhookSecret(),
  listUsers: (c) => c.listUsers(),
  inviteUser: (c) => c.inviteUser({ email: 'ada@example.com', role: 'viewer' }),
  changeUserRole: (c) => c.changeUserRole(ID, 'credit_officer'),
  removeUser: (c) => c.removeUser(ID),
  getStaffSettings: (c) => c.getStaffSettings(),
  updateStaffSettings: (c) => c.updateStaffSettings({ requireTotp: true }),
};

describe('the client and the API document', () => {
  it('when every method is called, then together they request exactly the operations of the lender API', async () => {
    const { client, calls } = recordingClient();
    for (const call of Object.values(everyMethod)) await call(client);
    const documented = Object.entries(lenderDocument('http://127.0.0.1').paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item as object)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m} ${path}`),
    );
    expect(documented.length).toBeGreaterThanOrEqual(9);
    expect([...new Set(calls)].sort()).toEqual([...new Set(documented)].sort());
  });

  it('when an id holds characters of a path, then they are escaped and the request stays on its route', async () => {
    const { client, calls } = recordingClient();
    await client.getApplication('../webhooks/deliveries');
    expect(calls).toEqual(['get /api/applications/..%2Fwebhooks%2Fdeliveries']);
    for (const dots of ['.', '..', '%2e', '.%2E']) {
      await expect(client.getDelivery(dots)).rejects.toThrow(TypeError);
    }
    expect(calls).toHaveLength(1);
  });
});
