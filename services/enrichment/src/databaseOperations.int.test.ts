import { randomUUID } from 'node:crypto';
import { waitFor } from '@testing/helpers';
import { startHarness, type Harness } from '@testing/enrichmentHarness';
import type { EnrichmentService } from './service';

/**
 * Database commands per account, enriched and closed, that the service may spend at most
 * (about 6.2 measured; 7.2 when a closing looked its accounts up; 15.2 when every step and every
 * webhook was a write of its own).
 */
const BUDGET_PER_ACCOUNT = 7;
const ACCOUNTS = 6;

const total = (counts: Map<string, number>) => [...counts.values()].reduce((s, v) => s + v, 0);

describe('enrichment database operations', () => {
  let h: Harness;
  let service: EnrichmentService;

  beforeAll(async () => {
    h = await startHarness({ jobDelay: '1s' });
    // Webhooks drive the work, as in production: polling, claims running out and rescans
    // would come much later.
    service = await h.startEnrichment({
      ENRICHMENT_POLL_AFTER: '60s',
      ENRICHMENT_LEASE: '2m',
      ENRICHMENT_RESCAN_INTERVAL: '1h',
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it(`when accounts are enriched and their applications decided, then each costs at most ${BUDGET_PER_ACCOUNT} database commands`, async () => {
    // What the start-up did (reads of whole collections, the relays' first sweeps) is not counted.
    await waitFor(
      async () => {
        const counts = await h.databaseCommands(service);
        return (counts.get('find enrichment_jobs') ?? 0) > 0 && (counts.get('find bank_data_scrubs') ?? 0) > 0;
      },
      { what: 'the start-up reads' },
    );
    await h.settled(service);
    const before = await h.databaseCommands(service);

    const linked = await Promise.all(Array.from({ length: ACCOUNTS }, () => h.linkAccount({ persona: 'salaried' })));
    for (const account of linked) await h.enriched(account.accountId, 30_000);
    for (const account of linked) {
      await h.publishFact({
        type: 'ApplicationClosed',
        factId: randomUUID(),
        clientId: 'client-test',
        applicationId: account.applicationId,
        at: new Date().toISOString(),
        applicantId: account.applicantId,
        status: 'COMPLETED',
        abandonReason: null,
        accountIds: [account.accountId],
      });
    }
    for (const account of linked) {
      await waitFor(
        async () => {
          const job = await h.job(account.accountId);
          return job?.closedAt && job.outboxPending === false;
        },
        { what: 'the job closed and its outbox emptied' },
      );
    }
    await h.settled(service);

    for (const account of linked) {
      expect(h.eventsOf('account.enrichment_ready', account.accountId)).toHaveLength(1);
      expect(h.resultsOf('AccountEnriched', account.accountId)).toHaveLength(1);
      expect(await h.job(account.accountId)).toMatchObject({ status: 'READY', attempt: 1 });
    }
    const after = await h.databaseCommands(service);
    const spent = new Map([...after].map(([key, n]) => [key, (n - (before.get(key) ?? 0)) / ACCOUNTS]));
    const perAccount = total(spent);
    // The figures per collection, for the service's README.
    console.log(
      `database commands per account: ${perAccount.toFixed(2)}\n` +
        [...spent]
          .filter(([, n]) => n > 0)
          .sort((a, b) => b[1] - a[1])
          .map(([key, n]) => `  ${key}: ${n.toFixed(2)}`)
          .join('\n'),
    );
    // A closing that names its accounts finds their jobs without a lookup.
    expect(spent.get('find enrichment_application_accounts') ?? 0).toBe(0);
    expect(perAccount).toBeLessThanOrEqual(BUDGET_PER_ACCOUNT);
  });
});
