import { randomUUID } from 'node:crypto';
import {
  ApplicantDetails,
  PROVIDER_KEY_MISSING_MESSAGE,
  type ApplicationCommand,
  type CommandReply,
  type InitiateRequest,
  type ReviewRequest,
  zonedDayRange,
  isTimeZone,
  DEFAULT_TIME_ZONE,
} from '@loan/contracts';
import type { AccountLinkingProvider } from '@loan/provider';
import {
  ServiceError,
  continueAfter,
  isDuplicateKey,
  type Clock,
  type InboundMessage,
  type KafkaBus,
  type Logger,
  type PurposeSealer,
} from '@loan/runtime';
import type { ApplicationsConfig } from '../../config';
import type { ApplicationRepository, PlainIdentity } from '../../data-access/applicationRepository';
import { notFound, type Answer, type ApplicationWriter } from '../../data-access/applicationWriter';
import { openIdentity, sealedApplicant } from '../../data-access/personalData';
import { applicationIdFor, type Application } from '../../domain/application';
import { analyzeApplication } from '../../domain/analyzeApplication/decide';
import { withdrawConsent } from '../../domain/consent/decide';
import { contestDecision } from '../../domain/contestDecision/decide';
import { respondToOffer } from '../../domain/respondToOffer/decide';
import { finalizeLinking } from '../../domain/finalizeLinking/decide';
import { decideExistingKey, openApplication, resumeApplication } from '../../domain/initiateApplication/decide';
import { accountsToRelink, checkRelink, relinkAccount } from '../../domain/linkAccount/decide';
import { confirmReview, reviewApplication, toQueueItem } from '../../domain/reviewApplication/decide';
import { toSummary, toView } from '../../domain/view';
import { portfolioTally } from '../../domain/portfolio/tally';

const MAX_CONFLICT_RETRIES = 10;

/** The applicant as the provider's widget greets them. */
type Customer = Pick<PlainIdentity, 'firstName' | 'lastName' | 'email' | 'bvn'>;

/**
 * The gateway's commands (`loan.applications.commands`): carries each out and answers on the
 * gateway replica's reply topic. The reply goes out beside the publication of the state
 * change's outbox, not after it.
 */
export function createCommandHandler(deps: {
  writer: ApplicationWriter;
  repo: ApplicationRepository;
  provider: AccountLinkingProvider;
  bus: Pick<KafkaBus, 'publishReply'>;
  /** Seals personal data; provider keys and replies are opened and sealed for their own purposes. */
  sealer: PurposeSealer;
  config: Pick<ApplicationsConfig, 'PROVIDER_REDIRECT_URL'>;
  clock: Clock;
  logger: Logger;
}) {
  const { writer, repo, provider, bus, sealer, config, clock, logger } = deps;
  const openKey = (sealed: string) => sealer.for('client-secrets').open(sealed);

  async function loadOwned(applicationId: string, clientId: string) {
    const stored = await repo.get(applicationId);
    return stored && stored.state.clientId === clientId ? stored : null;
  }

  /** The application as a person or the lender's API reads it: its identity opened. */
  const readable = (state: Application) => openIdentity(sealer, state);

  /** Who the provider's widget is for, in plain text: from the state's sealed identity. */
  const customerOf = (applicant: Application['applicant']): Customer => ({
    firstName: sealer.reveal(applicant.firstName),
    lastName: sealer.reveal(applicant.lastName),
    email: sealer.reveal(applicant.email),
    bvn: applicant.bvnSealed ? sealer.open(applicant.bvnSealed) : undefined,
  });

  /** Asks the provider for a widget address; an outage is an answer the lender can retry. */
  async function widgetFor(
    state: Pick<Application, 'applicationId'> & { loan: Pick<Application['loan'], 'amount' | 'tenor'> },
    customer: Customer,
    sealedKey: string,
    lenderName: string | undefined,
    reauthAccountId?: string,
  ) {
    const { loan } = state;
    const { widgetUrl } = await provider.initiateLink(openKey(sealedKey), {
      ref: state.applicationId,
      customerName: `${customer.firstName} ${customer.lastName}`,
      customerEmail: customer.email,
      customerBvn: customer.bvn || undefined,
      redirectUrl: config.PROVIDER_REDIRECT_URL,
      reauthAccountId,
      purpose: { lenderName: lenderName ?? null, loanAmount: loan.amount, tenorMonths: loan.tenor },
    });
    return widgetUrl;
  }

  /** The whole initiate request: the terms as sent, the applicant's identity unsealed. */
  function initiateRequestOf(cmd: Extract<ApplicationCommand, { type: 'InitiateApplication' }>): InitiateRequest {
    // Commands written before the identity was sealed carry it in the request itself.
    const details: unknown = cmd.applicant ? JSON.parse(sealer.open(cmd.applicant)) : cmd.request;
    return { ...cmd.request, ...ApplicantDetails.parse(details) };
  }

  async function initiate(
    cmd: Extract<ApplicationCommand, { type: 'InitiateApplication' }>,
    publishing: Promise<void>[],
  ) {
    const request = initiateRequestOf(cmd);
    const bvnSealed = request.bvn ? sealer.seal(request.bvn) : null;
    // Sealed once: an attempt that resumes after a collision keeps what the first one sealed.
    const applicant = sealedApplicant(sealer, request, bvnSealed);
    // What it was sealed from: for the provider and the search tokens, nothing opened again.
    const identity = { ...request, bvn: bvnSealed ? request.bvn : null };
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      // Most keys are new: the first attempt inserts without looking the key up, and a key
      // already taken (a retry, a resume, another lender's key) makes the insert collide; the
      // next attempt reads the application it names.
      const existing = attempt === 0 ? null : await repo.getByKey(request.idempotencyKey);
      const now = clock.now();
      if (existing) {
        const check = decideExistingKey(existing.state, cmd.clientId);
        if ('ok' in check) return { ok: false as const, code: check.code, message: check.message };
        const widgetUrl = await widgetFor(
          { applicationId: existing.state.applicationId, loan: request },
          identity,
          cmd.providerKey,
          cmd.lenderName,
        );
        const outcome = resumeApplication(existing.state, {
          request,
          applicant,
          widgetUrl,
          providerKeySealed: cmd.providerKey,
          now,
        });
        if (!outcome.ok) return { ok: false as const, code: outcome.code, message: outcome.message };
        const outbox = writer.toOutbox(outcome.state, outcome.effects, now, cmd.correlationId);
        if (await repo.replace(outcome.state, existing.rev, outbox, identity)) {
          await writer.written(existing, outcome.state, outbox, publishing);
          return { ok: true as const, result: outcome.result };
        }
        continue;
      }
      const applicationId = applicationIdFor(request.idempotencyKey);
      const widgetUrl = await widgetFor({ applicationId, loan: request }, identity, cmd.providerKey, cmd.lenderName);
      const outcome = openApplication({
        applicationId,
        applicantId: randomUUID(),
        clientId: cmd.clientId,
        request,
        applicant,
        providerKeySealed: cmd.providerKey,
        widgetUrl,
        now,
      });
      if (!outcome.ok) return { ok: false as const, code: outcome.code, message: outcome.message };
      const outbox = writer.toOutbox(outcome.state, outcome.effects, now, cmd.correlationId);
      try {
        await repo.insert(outcome.state, outbox, identity);
      } catch (error) {
        if (isDuplicateKey(error)) continue; // the key is taken (or another replica won the race): resume that one
        throw error;
      }
      await writer.written({ rev: 0, outboxPending: false }, outcome.state, outbox, publishing);
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
    if (!providerKey)
      return { ok: false as const, code: 'PROVIDER_KEY_MISSING' as const, message: PROVIDER_KEY_MISSING_MESSAGE };
    const [only] = cmd.accountId ? accountsToRelink(stored.state, cmd.accountId) : [];
    const widgetUrl = await widgetFor(
      stored.state,
      customerOf(stored.state.applicant),
      providerKey,
      cmd.lenderName,
      only?.providerAccountId,
    );
    return writer.commandMutation(
      cmd.applicationId,
      cmd.clientId,
      cmd.correlationId,
      (state, now) =>
        relinkAccount(state, { accountId: cmd.accountId, widgetUrl, providerKeySealed: providerKey, now }),
      publishing,
    );
  }

  /** The review as the reviewer sent it: who and why travel sealed. */
  function reviewOf(cmd: Extract<ApplicationCommand, { type: 'ReviewApplication' }>): ReviewRequest {
    const note = cmd.note === null ? undefined : sealer.open(cmd.note);
    return { ...cmd.review, reviewer: sealer.open(cmd.reviewer), ...(note === undefined ? {} : { note }) };
  }

  /** Carries out a command; what its write is publishing is left under way in `publishing`. */
  async function execute(cmd: ApplicationCommand, publishing: Promise<void>[]): Promise<Answer> {
    switch (cmd.type) {
      case 'InitiateApplication':
        return writer.locked(`key:${cmd.request.idempotencyKey}`, () => initiate(cmd, publishing));
      case 'FinalizeLinking':
        return writer.commandMutation(cmd.applicationId, cmd.clientId, cmd.correlationId, finalizeLinking, publishing);
      case 'AnalyzeApplication':
        return writer.commandMutation(
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
        return stored ? { ok: true, result: toView(readable(stored.state), clock.now()) } : notFound();
      }
      case 'ListApplications': {
        const { clientId, statuses, q, search, decisions, createdFrom, createdBefore, limit, after } = cmd;
        const page = await repo.list({
          clientId,
          statuses,
          q,
          search: search ?? [],
          decisions: decisions ?? [],
          ...(createdFrom ? { createdFrom: new Date(createdFrom) } : {}),
          ...(createdBefore ? { createdBefore: new Date(createdBefore) } : {}),
          limit,
          after: after ? { createdAt: new Date(after.createdAt), applicationId: after.applicationId } : null,
        });
        // Applicants' names: sealed again with every other result below.
        const { more, total, totalCapped } = page;
        return {
          ok: true,
          result: { items: page.items.map((state) => toSummary(readable(state))), more, total, totalCapped },
        };
      }
      case 'ReviewApplication':
        return writer.commandMutation(
          cmd.applicationId,
          cmd.clientId,
          cmd.correlationId,
          (state, now) =>
            reviewApplication(state, { request: reviewOf(cmd), confirmationAbove: cmd.confirmationAbove, now }),
          publishing,
        );
      case 'ConfirmReview':
        return writer.commandMutation(
          cmd.applicationId,
          cmd.clientId,
          cmd.correlationId,
          (state, now) => confirmReview(state, { reviewer: sealer.open(cmd.reviewer), now }),
          publishing,
        );
      case 'ContestDecision': {
        // The applicant's words travel sealed and are sealed again in the state.
        const statement = sealer.open(cmd.statement);
        return writer.commandMutation(
          cmd.applicationId,
          cmd.clientId,
          cmd.correlationId,
          (state, now) =>
            contestDecision(state, {
              contestId: randomUUID(),
              statement,
              sameStatement: (stored) => sealer.reveal(stored) === statement,
              now,
            }),
          publishing,
        );
      }
      case 'RespondToOffer':
        return writer.commandMutation(
          cmd.applicationId,
          cmd.clientId,
          cmd.correlationId,
          (state, now) => respondToOffer(state, { response: cmd.response, now }),
          publishing,
        );
      case 'WithdrawConsent':
        return writer.commandMutation(
          cmd.applicationId,
          cmd.clientId,
          cmd.correlationId,
          (state, now) => withdrawConsent(state, cmd.accountId, now),
          publishing,
        );
      case 'GetPortfolio': {
        const { from, to } = cmd;
        // The gateway sends a zone it knows; one this runtime does not know counts in Lagos days.
        const timeZone = isTimeZone(cmd.timeZone) ? cmd.timeZone : DEFAULT_TIME_ZONE;
        const range = zonedDayRange(from, to, timeZone);
        const tally = portfolioTally({ from, to, timeZone });
        const rows = repo.portfolioRows(cmd.clientId, new Date(range.createdFrom!), new Date(range.createdBefore!));
        for await (const row of rows) tally.add(row);
        return { ok: true, result: tally.report() };
      }
      case 'ListReviews': {
        const page = await repo.listForReview({
          clientId: cmd.clientId,
          status: cmd.status,
          limit: cmd.limit,
          after: cmd.after,
        });
        const now = clock.now();
        const items = page.items.map((state) => toQueueItem(readable(state), now)).filter((item) => item !== null);
        return { ok: true, result: { items, more: page.more } };
      }
    }
  }

  return async function onCommand(message: InboundMessage) {
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
      ? {
          commandId: cmd.commandId,
          ok: true,
          result: {},
          sealedResult: sealer.for('command-replies').seal(JSON.stringify(answer.result)),
        }
      : { commandId: cmd.commandId, ...answer };
    // The reply is a courtesy to the waiting gateway; the state change is already durable, and
    // its outbox is published beside the reply (the producer sends both in one request when it
    // can). The handler ends now, so the partition's next command need not wait for either; the
    // command's offset is committed once both are done. A failed publication is retried by the
    // relay.
    const sent = Promise.all([
      bus
        .publishReply(cmd.replyTo, [{ key: cmd.commandId, value: reply }])
        .catch((error) => logger.warn({ err: error, replyTo: cmd.replyTo }, 'reply could not be sent')),
      ...publishing.map((published) =>
        published.catch((error) =>
          logger.warn({ err: error, command: cmd.type }, 'outbox publication failed; retried shortly'),
        ),
      ),
    ]);
    await continueAfter(message, sent);
  };
}
