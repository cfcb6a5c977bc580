import { createHash, randomUUID } from 'node:crypto';
import { Topics, deadLetterTopicFor, replyTopicFor, type ApplicationCommand, type CommandReply } from '@loan/contracts';
import type { KafkaBus, Logger, Sealer } from '@loan/runtime';

export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type CommandInput = DistributiveOmit<ApplicationCommand, 'commandId' | 'replyTo' | 'issuedAt'>;

export class ReplyTimeoutError extends Error {
  constructor(readonly commandId: string) {
    super(`No reply to command ${commandId} in time`);
    this.name = 'ReplyTimeoutError';
  }
}

/**
 * The record key of a command: what must be handled in order shares a key. An initiate goes by
 * its idempotency key (as its digest: the lender's own string may be an e-mail address), a read
 * of many applications by its own id (nothing to keep in order), every other command by its
 * application.
 */
export function commandKey(command: ApplicationCommand): string {
  if (command.type === 'InitiateApplication')
    return `key:${createHash('sha256').update(command.request.idempotencyKey).digest('base64url')}`;
  if (command.type === 'ListApplications' || command.type === 'ListReviews' || command.type === 'GetPortfolio')
    return command.commandId;
  return command.applicationId;
}

/**
 * Request/reply over Kafka: a command goes to the applications service, keyed so that what
 * must be serialised is (initiate by idempotencyKey, the rest by applicationId); the reply
 * comes back on this replica's own topic, which only it reads. Results name the applicant, so
 * they come back sealed and are opened here. An idempotency key is the lender's own string (it
 * may be an e-mail address), so only its digest becomes a record key.
 */
export function createCommandBus(deps: {
  bus: KafkaBus;
  instanceId: string;
  timeoutMs: number;
  /** retention.ms of the reply topic: a reply is only wanted for timeoutMs. */
  replyRetentionMs: number;
  logger: Logger;
  sealer: Sealer;
}) {
  const { bus, timeoutMs } = deps;
  const replyTo = replyTopicFor(deps.instanceId);
  const groupId = `gateway-replies-${deps.instanceId}`;
  const pending = new Map<string, { resolve: (reply: CommandReply) => void; timer: NodeJS.Timeout }>();

  async function start() {
    await bus.ensureTopics([replyTo, deadLetterTopicFor(replyTo)], {
      partitions: 1,
      retentionMs: deps.replyRetentionMs,
    });
    await bus.consume({
      groupId,
      topics: [replyTo],
      fromBeginning: true,
      partitionsConsumedConcurrently: 1,
      handle: async (message) => {
        const reply = message.value as CommandReply;
        const waiter = pending.get(reply.commandId);
        if (!waiter) return; // the request already timed out
        clearTimeout(waiter.timer);
        pending.delete(reply.commandId);
        waiter.resolve(opened(reply));
      },
    });
  }

  function opened(reply: CommandReply): CommandReply {
    if (!reply.ok || !reply.sealedResult) return reply;
    const result = JSON.parse(deps.sealer.open(reply.sealedResult)) as Record<string, unknown>;
    return { commandId: reply.commandId, ok: true, result };
  }

  /**
   * Removes this replica's reply topic (and its dead-letter topic) on a clean shutdown, once its
   * consumer has stopped: a consumer left running would try to commit the replies it handled to
   * a topic that is gone, and kafkajs retries that refused commit for longer than a stop may take.
   */
  async function stop() {
    for (const [, waiter] of pending) clearTimeout(waiter.timer);
    pending.clear();
    await bus.stopConsumer(groupId);
    await bus
      .deleteTopics([replyTo, deadLetterTopicFor(replyTo)])
      .catch((error: unknown) =>
        deps.logger.warn(
          { err: error, topic: replyTo },
          'deleting the reply topic failed; a sweep of another replica removes it',
        ),
      );
  }

  function send(input: CommandInput): Promise<CommandReply> {
    const commandId = randomUUID();
    const command = { ...input, commandId, replyTo, issuedAt: new Date().toISOString() } as ApplicationCommand;
    const key = commandKey(command);
    return new Promise<CommandReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(commandId);
        reject(new ReplyTimeoutError(commandId));
      }, timeoutMs);
      pending.set(commandId, { resolve, timer });
      bus
        .publish(Topics.applicationCommands, [
          { key, value: command, headers: { 'x-correlation-id': input.correlationId } },
        ])
        .catch((error: unknown) => {
          clearTimeout(timer);
          pending.delete(commandId);
          reject(error);
        });
    });
  }

  return { start, stop, send, replyTo };
}
export type CommandBus = ReturnType<typeof createCommandBus>;
