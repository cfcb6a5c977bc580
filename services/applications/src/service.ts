import { randomUUID } from 'node:crypto';
import {
  ApplicantDetails,
  PROVIDER_KEY_MISSING_MESSAGE,
  Topics,
  type ApplicationCommand,
  type InitiateRequest,
  type CommandReply,
  type DeadlinePassed,
  type EnrichmentResult,
  type EnrichmentResultType,
  type ProviderCallback,
  type ScoringResult,
} from '@loan/contracts';
import type { AccountLinkingProvider } from '@loan/provider';
import { LRUCache } from 'lru-cache';
import {
  ServiceError,
  createOpsApp,
  createKeyedLock,
  createOutboxRelay,
  ensureContractTopics,
  toOutboxEntries,
  isDuplicateKey,
  listen,
  syncIndexes,
  type Clock,
  type InboundMessage,
  type OutboxEntry,
  type ServiceRuntime,
} from '@loan/runtime';
import type { ApplicationsConfig } from './config';
import { applicationModel } from './data-access/applicationModel';
import { createApplicationRepository, type Stored } from './data-access/applicationRepository';
import { applicationIdFor, type Application, type Effect, type Outcome } from './domain/application';
import { analyzeApplication } from './domain/analyzeApplication/decide';
import { expireDeadline } from './domain/expireDeadline/decide';
import { finalizeLinking } from './domain/finalizeLinking/decide';
import { decideExistingKey, openApplication, resumeApplication } from './domain/initiateApplication/decide';
import { accountsToRelink, checkRelink, relinkAccount } from './domain/linkAccount/decide';
import { recordAccountLink } from './domain/recordAccountLink/decide';
import { recordEnrichment } from './domain/recordEnrichment/decide';
import { recordScoring } from './domain/recordScoring/decide';
import { toView } from './domain/view';

const MAX_CONFLICT_RETRIES = 10;
/** Applications whose last write by this process is remembered (a few KB each). */
const REMEMBERED_APPLICATIONS = 1_000;

type Change = { state: Application; effects: Effect[] } | null;
type FactEffect = Extract<Effect, { kind: 'fact' }>['fact'];
type Answer =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; code: Extract<CommandReply, { ok: false }>['code']; message: string };

/**
 * The applications service: owns applicants, applications, linked accounts and idempotency
 * keys; answers the gateway's commands and turns provider callbacks, enrichment and scoring
 * results and passed deadlines into state changes and events.
 */
export function createApplicationsService(deps: {
  runtime: ServiceRuntime;
  config: ApplicationsConfig;
  provider: AccountLinkingProvider;
  clock: Clock;
}) {
  const { runtime, config, provider, clock } = deps;
  const { bus, logger, sealer } = runtime;
  const model = applicationModel(runtime.db);
  const repo = createApplicationRepository(model);
  const relay = createOutboxRelay({ bus, model, logger });
  let http: Awaited<ReturnType<typeof listen>> | null = null;
  // One change at a time per application (and per idempotency key) within this process.
  const locked = createKeyedLock();
  /**
   * Each application as this process last wrote it, so that its next change here need not read
   * it back. A remembered state is only ever the starting point of a write conditional on its
   * revision: when another replica wrote since, the write misses and the change is decided
   * again on a fresh read. A decision that ends without a write (nothing to do, a refusal) is
   * also taken again on a fresh read, since a stale state could be the reason for it.
   */
  const remembered = new LRUCache<string, Stored>({ max: REMEMBERED_APPLICATIONS });

  /** The application as remembered (first attempt only) or as the database has it. */
  async function load(applicationId: string, attempt: number): Promise<{ stored: Stored | null; remembered: boolean }> {
    const hit = attempt === 0 ? remembered.get(applicationId) : undefined;
    return hit ? { stored: hit, remembered: true } : { stored: await repo.get(applicationId), remembered: false };
  }

  /**
   * After a successful write: publishes its outbox, then remembers the state it wrote. With
   * `publishing`, the publication is left under way there (a command's reply then goes out
   * beside it instead of after it; the write is durable either way).
   */
  async function written(
    stored: Pick<Stored, 'rev' | 'outboxPending'>,
    state: Application,
    outbox: OutboxEntry[],
    publishing?: Promise<void>[],
  ) {
    remembered.delete(state.applicationId);
    const published = relay
      .flush(state.applicationId, writtenOutbox(stored, outbox))
      .then(() => void remembered.set(state.applicationId, { state, rev: stored.rev + 1, outboxPending: false }));
    if (publishing) publishing.push(published);
    else await published;
  }

  /** The applicant's names leave this service sealed, like the BVN. */
  function sealedFact(fact: FactEffect): FactEffect {
    if (fact.type !== 'AnalysisRequested') return fact;
    const { firstName, lastName } = fact.applicant;
    return { ...fact, applicant: { ...fact.applicant, firstName: sealer.seal(firstName), lastName: sealer.seal(lastName) } };
  }

  function toOutbox(state: Application, effects: Effect[], now: Date, correlationId?: string): OutboxEntry[] {
    return toOutboxEntries(
      state,
      effects.map((e) => (e.kind === 'event' ? e : { kind: 'fact', topic: Topics.applicationFacts, fact: sealedFact(e.fact) })),
      now,
      correlationId ? { 'x-correlation-id': correlationId } : undefined,
    );
  }

  /**
   * What a write that was conditional on `stored.rev` put into the outbox, when the outbox was
   * empty before it: the relay publishes that without reading the document back.
   */
  const writtenOutbox = (stored: { outboxPending: boolean }, outbox: OutboxEntry[]) =>
    stored.outboxPending ? undefined : outbox;

  /**
   * Load, decide, persist (state and outbox in one write), publish. A concurrent change makes
   * the write miss; the decision is then taken again on the fresh state.
   */
  function mutate(
    applicationId: string,
    decide: (state: Application, now: Date) => Change,
    correlationId?: string,
  ): Promise<Application | null> {
    return locked(applicationId, () => mutateNow(applicationId, decide, correlationId));
  }

  async function mutateNow(
    applicationId: string,
    decide: (state: Application, now: Date) => Change,
    correlationId?: string,
  ): Promise<Application | null> {
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const { stored, remembered: cached } = await load(applicationId, attempt);
      if (!stored) return null;
      const now = clock.now();
      const change = decide(stored.state, now);
      if (!change) {
        if (cached) continue;
        return stored.state;
      }
      const outbox = toOutbox(change.state, change.effects, now, correlationId);
      if (await repo.replace(change.state, stored.rev, outbox)) {
        await written(stored, change.state, outbox);
        return change.state;
      }
    }
    throw new ServiceError(`Application ${applicationId} kept changing under us`, { retriable: true });
  }

  const openKey = (sealed: string) => sealer.open(sealed);

  function notFound(): Answer {
    return { ok: false, code: 'NOT_FOUND', message: 'Application not found' };
  }

  async function loadOwned(applicationId: string, clientId: string) {
    const stored = await repo.get(applicationId);
    return stored && stored.state.clientId === clientId ? stored : null;
  }

  /** Asks the provider for a widget address; an outage is an answer the lender can retry. */
  async function widgetFor(state: Pick<Application, 'applicationId' | 'applicant'>, sealedKey: string, reauthAccountId?: string) {
    const { widgetUrl } = await provider.initiateLink(openKey(sealedKey), {
      ref: state.applicationId,
      customerName: `${state.applicant.firstName} ${state.applicant.lastName}`,
      customerEmail: state.applicant.email,
      customerBvn: state.applicant.bvnSealed ? sealer.open(state.applicant.bvnSealed) : undefined,
      redirectUrl: config.PROVIDER_REDIRECT_URL,
      reauthAccountId,
    });
    return widgetUrl;
  }

  /** Applies a decision that produced an outcome for a command, retrying on write conflicts. */
  function commandMutation(
    applicationId: string,
    clientId: string,
    correlationId: string,
    decide: (state: Application, now: Date) => Outcome,
    publishing: Promise<void>[],
  ): Promise<Answer> {
    return locked(applicationId, () => commandMutationNow(applicationId, clientId, correlationId, decide, publishing));
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
      const outcome = decide(stored.state, now);
      const unchanged = !outcome.ok || (outcome.effects.length === 0 && outcome.state === stored.state);
      if (unchanged && loaded.remembered) continue;
      if (!outcome.ok) return { ok: false, code: outcome.code, message: outcome.message };
      if (unchanged) return { ok: true, result: outcome.result };
      const outbox = toOutbox(outcome.state, outcome.effects, now, correlationId);
      if (await repo.replace(outcome.state, stored.rev, outbox)) {
        await written(stored, outcome.state, outbox, publishing);
        return { ok: true, result: outcome.result };
      }
    }
    throw new ServiceError(`Application ${applicationId} kept changing under us`, { retriable: true });
  }

  /** The whole initiate request: the terms as sent, the applicant's identity unsealed. */
  function initiateRequestOf(cmd: Extract<ApplicationCommand, { type: 'InitiateApplication' }>): InitiateRequest {
    // Commands written before the identity was sealed carry it in the request itself.
    const details: unknown = cmd.applicant ? JSON.parse(sealer.open(cmd.applicant)) : cmd.request;
    return { ...cmd.request, ...ApplicantDetails.parse(details) };
  }

  async function initiate(cmd: Extract<ApplicationCommand, { type: 'InitiateApplication' }>, publishing: Promise<void>[]) {
    const request = initiateRequestOf(cmd);
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const existing = await repo.getByKey(request.idempotencyKey);
      const now = clock.now();
      const bvnSealed = request.bvn ? sealer.seal(request.bvn) : null;
      const applicant = { firstName: request.firstName, lastName: request.lastName, email: request.email, phone: null, bvnSealed };
      if (existing) {
        const check = decideExistingKey(existing.state, cmd.clientId);
        if ('ok' in check) return { ok: false as const, code: check.code, message: check.message };
        const widgetUrl = await widgetFor({ applicationId: existing.state.applicationId, applicant }, cmd.providerKey);
        const outcome = resumeApplication(existing.state, { request, bvnSealed, widgetUrl, providerKeySealed: cmd.providerKey, now });
        if (!outcome.ok) return { ok: false as const, code: outcome.code, message: outcome.message };
        const outbox = toOutbox(outcome.state, outcome.effects, now, cmd.correlationId);
        if (await repo.replace(outcome.state, existing.rev, outbox)) {
          await written(existing, outcome.state, outbox, publishing);
          return { ok: true as const, result: outcome.result };
        }
        continue;
      }
      const applicationId = applicationIdFor(request.idempotencyKey);
      const widgetUrl = await widgetFor({ applicationId, applicant }, cmd.providerKey);
      const outcome = openApplication({
        applicationId,
        applicantId: randomUUID(),
        clientId: cmd.clientId,
        request,
        bvnSealed,
        providerKeySealed: cmd.providerKey,
        widgetUrl,
        now,
      });
      if (!outcome.ok) return { ok: false as const, code: outcome.code, message: outcome.message };
      const outbox = toOutbox(outcome.state, outcome.effects, now, cmd.correlationId);
      try {
        await repo.insert(outcome.state, outbox);
      } catch (error) {
        if (isDuplicateKey(error)) continue; // another replica won the race: resume theirs
        throw error;
      }
      await written({ rev: 0, outboxPending: false }, outcome.state, outbox, publishing);
      return { ok: true as const, result: outcome.result };
    }
    throw new ServiceError('Initiate kept conflicting', { retriable: true });
  }

  async function relink(cmd: Extract<ApplicationCommand, { type: 'RelinkAccount' }>, publishing: Promise<void>[]) {
    const stored = await loadOwned(cmd.applicationId, cmd.clientId);
    if (!stored) return notFound();
    const refused = checkRelink(stored.state, cmd.accountId);
    if (refused && !refused.ok) return { ok: false as const, code: refused.code, message: refused.message };
    const providerKey = cmd.providerKey;
    if (!providerKey) return { ok: false as const, code: 'PROVIDER_KEY_MISSING' as const, message: PROVIDER_KEY_MISSING_MESSAGE };
    const [only] = cmd.accountId ? accountsToRelink(stored.state, cmd.accountId) : [];
    const widgetUrl = await widgetFor(stored.state, providerKey, only?.providerAccountId);
    return commandMutation(cmd.applicationId, cmd.clientId, cmd.correlationId, (state, now) =>
      relinkAccount(state, { accountId: cmd.accountId, widgetUrl, providerKeySealed: providerKey, now }),
      publishing,
    );
  }

  /** Carries out a command; what its write is publishing is left under way in `publishing`. */
  async function execute(cmd: ApplicationCommand, publishing: Promise<void>[]): Promise<Answer> {
    switch (cmd.type) {
      case 'InitiateApplication':
        return locked(`key:${cmd.request.idempotencyKey}`, () => initiate(cmd, publishing));
      case 'FinalizeLinking':
        return commandMutation(cmd.applicationId, cmd.clientId, cmd.correlationId, finalizeLinking, publishing);
      case 'AnalyzeApplication':
        return commandMutation(
          cmd.applicationId,
          cmd.clientId,
          cmd.correlationId,
          (state, now) => analyzeApplication(state, { analysisId: randomUUID(), now }),
          publishing,
        );
      case 'RelinkAccount':
        return relink(cmd, publishing);
      case 'GetApplication': {
        const stored = await loadOwned(cmd.applicationId, cmd.clientId);
        return stored ? { ok: true, result: toView(stored.state) } : notFound();
      }
    }
  }

  async function onCommand(message: InboundMessage) {
    const cmd = message.value as ApplicationCommand;
    let answer: Answer;
    const publishing: Promise<void>[] = [];
    try {
      answer = await execute(cmd, publishing);
    } catch (error) {
      const retriable = (error as ServiceError).retriable;
      if (!(error instanceof ServiceError) || (error as Error).name !== 'ProviderError') throw error;
      logger.warn({ err: error, command: cmd.type, retriable }, 'provider call failed while handling a command');
      answer = {
        ok: false,
        code: 'PROVIDER_UNAVAILABLE',
        message: 'The account-linking provider could not be reached; retry the request',
      };
    }
    // A result names the applicant (a status read shows names and e-mail): it travels sealed.
    const reply: CommandReply = answer.ok
      ? { commandId: cmd.commandId, ok: true, result: {}, sealedResult: sealer.seal(JSON.stringify(answer.result)) }
      : { commandId: cmd.commandId, ...answer };
    // The reply is a courtesy to the waiting gateway; the state change is already durable, and
    // its outbox is published beside the reply (the producer sends both in one request when it
    // can). The handler ends once both are done; a failed publication is retried by the relay.
    await Promise.all([
      bus
        .publish(cmd.replyTo, [{ key: cmd.commandId, value: reply }])
        .catch((error) => logger.warn({ err: error, replyTo: cmd.replyTo }, 'reply could not be sent')),
      ...publishing.map((published) =>
        published.catch((error) => logger.warn({ err: error, command: cmd.type }, 'outbox publication failed; retried shortly')),
      ),
    ]);
  }

  async function onProviderCallback(message: InboundMessage) {
    const callback = message.value as ProviderCallback;
    if (callback.kind !== 'account_connected' || !callback.ref) return;
    const stored = await repo.get(callback.ref);
    if (!stored) {
      logger.warn({ ref: callback.ref }, 'provider linked an account for an unknown application; ignored');
      return;
    }
    if (callback.clientId && callback.clientId !== stored.state.clientId) {
      // Verified with one lender's own provider secret, about another lender's application.
      logger.warn({ ref: callback.ref, clientId: callback.clientId }, 'provider callback about another client\'s application; ignored');
      return;
    }
    if (stored.state.accounts.some((a) => a.providerAccountId === callback.providerAccountId)) return;
    const account = await provider.getAccount(openKey(stored.state.providerKeySealed), callback.providerAccountId);
    const accountId = randomUUID();
    await mutate(
      callback.ref,
      (state, now) => {
        const outcome = recordAccountLink(state, { callbackId: callback.callbackId, accountId, account, now });
        if (outcome.kind === 'duplicate') return null;
        if (outcome.kind === 'refused') {
          logger.warn(
            { applicationId: state.applicationId, providerAccountId: account.id, reason: outcome.reason },
            'account link refused',
          );
          return { state: outcome.state, effects: [] };
        }
        return { state: outcome.state, effects: outcome.effects };
      },
      message.headers['x-correlation-id'],
    );
  }

  async function onEnrichmentResult(message: InboundMessage) {
    const result = message.value as EnrichmentResult;
    await mutate(result.applicationId, (state, now) => recordEnrichment(state, result, now));
  }

  async function onScoringResult(message: InboundMessage) {
    const result = message.value as ScoringResult;
    await mutate(result.applicationId, (state, now) => recordScoring(state, result, now));
  }

  async function onDeadline(message: InboundMessage) {
    const deadline = message.value as DeadlinePassed;
    if (deadline.kind === 'enrichment_timeout') return;
    await mutate(deadline.applicationId, (state, now) => expireDeadline(state, deadline, now));
  }

  const handlers: Record<string, (m: InboundMessage) => Promise<void>> = {
    [Topics.applicationCommands]: onCommand,
    [Topics.providerCallbacks]: onProviderCallback,
    [Topics.enrichmentResults]: onEnrichmentResult,
    [Topics.scoringResults]: onScoringResult,
    [Topics.deadlines]: onDeadline,
  };

  return {
    repo,
    model,
    async start() {
      await syncIndexes(runtime.db);
      await ensureContractTopics(bus);
      relay.start();
      runtime.lifecycle.onStop('outbox', () => relay.stop());
      await bus.consume({
        groupId: 'applications',
        topics: Object.keys(handlers),
        partitionsConsumedConcurrently: config.COMMAND_CONCURRENCY,
        // recordEnrichment acts on an account's outcome only (a scrub of bank data is not one).
        types: { [Topics.enrichmentResults]: ['AccountEnriched', 'EnrichmentTimedOut'] satisfies EnrichmentResultType[] },
        handle: async (message) => handlers[message.topic]?.(message),
      });
      http = await listen(createOpsApp({ metrics: runtime.metrics, checks: runtime.checks }), config.HTTP_HOST, config.HTTP_PORT);
      runtime.lifecycle.onStop('http', () => http?.close());
      logger.info({ url: http.url }, 'applications service started');
      return { url: http.url };
    },
    stop: () => runtime.lifecycle.stop(),
  };
}
