import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { waitFor } from '@testing/helpers';
import { isolatedRegistry } from '@testing/stack';
import { factsOf } from './__tests__/facts';
import {
  type Driver,
  type RunningJanitor,
  newStage,
  settle,
  shiftableClock,
  startDriver,
  startJanitor,
} from './__tests__/harness';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MINUTE = 60_000;
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

describe('janitor: deadlines from facts, against the real broker, registry and database', () => {
  const stage = newStage();
  const clock = shiftableClock();
  let janitor: RunningJanitor;
  let driver: Driver;
  let registry: Awaited<ReturnType<typeof isolatedRegistry>>;
  const sharedRegistry = process.env.SCHEMA_REGISTRY_URL;

  beforeAll(async () => {
    // The schemas of this branch, whatever other branches register on a shared registry meanwhile.
    registry = await isolatedRegistry(`test-${stage.namespace}`);
    process.env.SCHEMA_REGISTRY_URL = registry.url;
    janitor = await startJanitor(stage, { clock });
    driver = await startDriver(stage);
  });

  afterAll(async () => {
    await driver?.stop();
    await janitor?.stop();
    await registry?.close();
    process.env.SCHEMA_REGISTRY_URL = sharedRegistry;
    const db = await mongoose
      .createConnection(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/', { dbName: stage.database })
      .asPromise();
    await db.dropDatabase();
    await db.close();
  });

  const now = () => clock.now().toISOString();
  const deadline = (id: string) => janitor.service.deadlines.get(id);
  const statusOf = async (id: string) => (await deadline(id))?.status;
  const armed = (id: string) => waitFor(async () => (await statusOf(id)) === 'ARMED', { what: `${id} armed` });
  const cancelled = (id: string) =>
    waitFor(async () => (await statusOf(id)) === 'CANCELLED', { what: `${id} cancelled` });

  it('when no account is linked within NO_LINK_TTL, then no_link fires once, keyed by the application, with the creation as since', async () => {
    const app = factsOf();
    const openedAt = now();
    await driver.publish(app.opened(openedAt));
    const id = `no_link:${app.applicationId}:${openedAt}`;
    await armed(id);

    clock.setTo(new Date(Date.parse(openedAt) + DAY - MINUTE));
    await settle([janitor], driver);
    expect(driver.deadlinesOf(app.applicationId)).toEqual([]);
    expect(await statusOf(id)).toBe('ARMED');

    clock.advance(MINUTE);
    const [passed] = await waitFor(
      () => {
        const seen = driver.deadlinesOf(app.applicationId);
        return seen.length > 0 && seen;
      },
      { what: 'no_link' },
    );
    expect(passed).toMatchObject({
      deadlineId: id,
      kind: 'no_link',
      clientId: app.clientId,
      applicationId: app.applicationId,
      accountId: null,
      attempt: null,
      since: openedAt,
      dueAt: plus(openedAt, DAY),
    });
    expect(Date.parse(passed!.firedAt)).toBeGreaterThanOrEqual(Date.parse(passed!.dueAt));
    expect(driver.seen.find((s) => s.value.deadlineId === id)?.key).toBe(app.applicationId);

    await settle([janitor], driver);
    expect(driver.deadlinesOf(app.applicationId)).toHaveLength(1);
    expect(await statusOf(id)).toBe('FIRED');
  });

  it('when an account is linked in time, then no_link never fires and no_analyze fires NO_ANALYZE_TTL after the first link', async () => {
    const app = factsOf();
    const [first, second] = [randomUUID(), randomUUID()];
    const openedAt = now();
    await driver.publish(app.opened(openedAt));
    await armed(`no_link:${app.applicationId}:${openedAt}`);
    clock.advance(HOUR);
    const linkedAt = now();
    await driver.publish(app.linked(first, linkedAt));
    await cancelled(`no_link:${app.applicationId}:${openedAt}`);
    await armed(`no_analyze:${app.applicationId}:${linkedAt}`);
    clock.advance(DAY);
    await driver.publish(app.linked(second, now()));
    await waitFor(async () => (await janitor.service.deadlines.listByApplication(app.applicationId)).length === 4, {
      what: 'the second account tracked',
    });

    clock.advance(7 * DAY - DAY);
    await settle([janitor], driver);
    const kinds = driver.deadlinesOf(app.applicationId).map((d) => [d.kind, d.since]);
    expect(kinds.filter(([kind]) => kind === 'no_link')).toEqual([]);
    expect(kinds.filter(([kind]) => kind === 'no_analyze')).toEqual([['no_analyze', linkedAt]]);
  });

  it('when the application is resumed, then no_link runs from the resume and the one from creation never fires', async () => {
    const app = factsOf();
    const openedAt = now();
    await driver.publish(app.opened(openedAt));
    await armed(`no_link:${app.applicationId}:${openedAt}`);
    clock.advance(10 * HOUR);
    const resumedAt = now();
    await driver.publish(app.resumed(resumedAt));
    await cancelled(`no_link:${app.applicationId}:${openedAt}`);
    await armed(`no_link:${app.applicationId}:${resumedAt}`);

    clock.advance(14 * HOUR);
    await settle([janitor], driver);
    expect(driver.deadlinesOf(app.applicationId)).toEqual([]);

    clock.advance(10 * HOUR);
    await settle([janitor], driver);
    expect(driver.deadlinesOf(app.applicationId).map((d) => [d.kind, d.since])).toEqual([['no_link', resumedAt]]);
  });

  it('when analyze is requested within NO_ANALYZE_TTL, then no_analyze does not fire (only the analysis deadline, as nothing decided it)', async () => {
    const app = factsOf();
    const accountId = randomUUID();
    await driver.publish(app.opened(now()));
    const linkedAt = now();
    await driver.publish(app.linked(accountId, linkedAt), app.enriched(accountId, 1, plus(linkedAt, 1)));
    await driver.publish(app.finalized(plus(linkedAt, 2)), app.analysisRequested(plus(linkedAt, 3), [accountId]));
    await cancelled(`no_analyze:${app.applicationId}:${linkedAt}`);
    // Cancelled, or never armed when the result was handled before the link (another topic).
    await waitFor(async () => (await statusOf(`enrichment_timeout:${accountId}:${linkedAt}`)) !== 'ARMED', {
      what: 'the enrichment timeout stopped',
    });

    clock.advance(8 * DAY);
    await settle([janitor], driver);
    expect(driver.deadlinesOf(app.applicationId).map((d) => [d.kind, d.since])).toEqual([
      ['analysis_timeout', plus(linkedAt, 3)],
    ]);
  });

  it('when one account is enriched in time and the other is not, then only the other one times out', async () => {
    const app = factsOf();
    const [enriched, stalled] = [randomUUID(), randomUUID()];
    await driver.publish(app.opened(now()));
    const firstAt = now();
    const secondAt = plus(firstAt, 1);
    await driver.publish(app.linked(enriched, firstAt), app.linked(stalled, secondAt));
    await armed(`enrichment_timeout:${stalled}:${secondAt}`);
    clock.advance(5 * MINUTE);
    await driver.publish(app.enriched(enriched, 1, now()));
    await cancelled(`enrichment_timeout:${enriched}:${firstAt}`);

    clock.advance(20 * MINUTE);
    await settle([janitor], driver);
    const timeouts = driver.deadlinesOf(app.applicationId).filter((d) => d.kind === 'enrichment_timeout');
    expect(timeouts).toEqual([
      expect.objectContaining({ accountId: stalled, attempt: 1, since: secondAt, dueAt: plus(secondAt, 20 * MINUTE) }),
    ]);
  });

  it('when enrichment is restarted, then the timeout runs from the restart as the next attempt', async () => {
    const app = factsOf();
    const accountId = randomUUID();
    await driver.publish(app.opened(now()));
    const linkedAt = now();
    await driver.publish(app.linked(accountId, linkedAt));
    await armed(`enrichment_timeout:${accountId}:${linkedAt}`);
    clock.advance(15 * MINUTE);
    const restartedAt = now();
    await driver.publish(app.restarted(accountId, restartedAt));
    await cancelled(`enrichment_timeout:${accountId}:${linkedAt}`);
    await armed(`enrichment_timeout:${accountId}:${restartedAt}`);

    clock.advance(10 * MINUTE);
    await settle([janitor], driver);
    expect(driver.deadlinesOf(app.applicationId).filter((d) => d.kind === 'enrichment_timeout')).toEqual([]);

    clock.advance(10 * MINUTE);
    await settle([janitor], driver);
    expect(driver.deadlinesOf(app.applicationId).filter((d) => d.kind === 'enrichment_timeout')).toEqual([
      expect.objectContaining({ accountId, attempt: 2, since: restartedAt }),
    ]);
  });

  it('when the first link arrives at the moment no_link is due, then no_link is emitted at most once and no_analyze runs from the link', async () => {
    const app = factsOf();
    const accountId = randomUUID();
    const openedAt = now();
    const noLink = `no_link:${app.applicationId}:${openedAt}`;
    await driver.publish(app.opened(openedAt));
    await armed(noLink);

    const dueAt = plus(openedAt, DAY);
    clock.setTo(new Date(dueAt));
    await driver.publish(app.linked(accountId, dueAt));
    await armed(`no_analyze:${app.applicationId}:${dueAt}`);
    await settle([janitor], driver);

    const emitted = driver.deadlinesOf(app.applicationId).filter((d) => d.kind === 'no_link');
    const status = await statusOf(noLink);
    // Either outcome is correct: the owner ignores a no_link whose application has an account.
    expect(emitted.length).toBeLessThanOrEqual(1);
    expect(status).toBe(emitted.length === 1 ? 'FIRED' : 'CANCELLED');
    expect(emitted.every((d) => d.since === openedAt)).toBe(true);
    expect(await statusOf(`enrichment_timeout:${accountId}:${dueAt}`)).toBe('ARMED');
  });

  it('when the application closes, then none of its deadlines fire (only the retention of its bank data runs on), and a facts redelivery does not arm them again', async () => {
    const app = factsOf();
    const accountId = randomUUID();
    const openedAt = now();
    const linkedAt = plus(openedAt, 1);
    const opened = app.opened(openedAt);
    const linked = app.linked(accountId, linkedAt);
    await driver.publish(opened, linked);
    await armed(`enrichment_timeout:${accountId}:${linkedAt}`);
    await driver.publish(app.closed(plus(openedAt, 2), 'FAILED'));
    await cancelled(`no_analyze:${app.applicationId}:${linkedAt}`);
    await cancelled(`enrichment_timeout:${accountId}:${linkedAt}`);

    await driver.publish(opened, linked);
    clock.advance(8 * DAY);
    await settle([janitor], driver);
    expect(driver.deadlinesOf(app.applicationId)).toEqual([]);
    const stored = await janitor.service.deadlines.listByApplication(app.applicationId);
    expect(stored.map((d) => [d.kind, d.status]).sort()).toEqual([
      ['bank_data_retention', 'ARMED'],
      ['enrichment_timeout', 'CANCELLED'],
      ['no_analyze', 'CANCELLED'],
      ['no_link', 'CANCELLED'],
      ['record_retention', 'ARMED'],
    ]);
    // 90 days after the failure, the retention deadline fires once.
    clock.advance(90 * DAY);
    await settle([janitor], driver);
    expect(driver.deadlinesOf(app.applicationId).map((d) => [d.kind, d.since])).toEqual([
      ['bank_data_retention', plus(openedAt, 2)],
    ]);
  });

  it('when the ops endpoints are asked, then the janitor is healthy, ready, and counts its deadlines by kind', async () => {
    expect((await fetch(`${janitor.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${janitor.url}/readyz`)).status).toBe(200);
    const text = await (await fetch(`${janitor.url}/metrics`)).text();
    const value = (name: string, kind: string) =>
      Number(new RegExp(`^${name}\\{[^}]*kind="${kind}"[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
    expect(value('janitor_deadlines_fired_total', 'no_link')).toBeGreaterThanOrEqual(2);
    expect(value('janitor_deadlines_cancelled_total', 'enrichment_timeout')).toBeGreaterThanOrEqual(3);
    expect(value('janitor_deadlines_armed_total', 'no_analyze')).toBeGreaterThanOrEqual(3);
    expect(value('janitor_deadlines_armed', 'no_link')).toBeGreaterThanOrEqual(0);
    expect(text).toMatch(/^janitor_deadlines_unpublished\{[^}]*\} 0$/m);
    expect(text).toMatch(/^janitor_deadlines_overdue\{[^}]*\} 0$/m);
  });
});
