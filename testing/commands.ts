import { randomUUID } from 'node:crypto';
import { Topics, replyTopicFor, type ApplicationCommand, type CommandReply } from '@loan/contracts';
import { commandKey } from '../services/gateway/src/data-access/commandBus';
import { waitFor } from './helpers';
import { testSealer, type testBus } from './stack';

/** A command as a test writes it: what the gateway adds to every command left out. */
export type CommandInput = ApplicationCommand extends infer C
  ? C extends unknown
    ? Omit<C, 'commandId' | 'replyTo' | 'correlationId' | 'issuedAt'>
    : never
  : never;

/** A reply as a test reads it: an ok result opened, a refusal as it came. */
export type CommandOutcome = { ok: true; result: Record<string, unknown> } | Extract<CommandReply, { ok: false }>;

/**
 * The gateway's side of the applications service's commands, for tests of that service: sends
 * commands on `loan.applications.commands` keyed as the gateway keys them (`commandKey`), with a
 * reply topic of its own read by the consumer group `<name>-replies`, and opens an ok reply's
 * sealed result as the gateway does.
 */
export async function commandSender(bus: ReturnType<typeof testBus>, name: string) {
  const sealer = testSealer();
  const replyTo = replyTopicFor(`${name}-${randomUUID().slice(0, 8)}`);
  const replyGroup = `${name}-replies`;
  const replies = new Map<string, CommandReply>();
  await bus.ensureTopics([replyTo]);
  await bus.consume({
    groupId: replyGroup,
    topics: [replyTo],
    handle: async (m) => void replies.set((m.value as CommandReply).commandId, m.value as CommandReply),
  });

  /** Publishes a command and answers its id, without waiting for the reply. */
  async function publish(input: CommandInput): Promise<string> {
    const commandId = randomUUID();
    const command = {
      ...input,
      commandId,
      replyTo,
      correlationId: randomUUID(),
      issuedAt: new Date().toISOString(),
    } as ApplicationCommand;
    await bus.publish(Topics.applicationCommands, [{ key: commandKey(command), value: command }]);
    return commandId;
  }

  /** Sends a command and waits for its reply (at most `timeoutMs`); an ok result is opened. */
  async function send(input: CommandInput, timeoutMs?: number): Promise<CommandOutcome> {
    const commandId = await publish(input);
    const reply = await waitFor(() => replies.get(commandId), { what: `the reply to ${input.type}`, timeoutMs });
    if (!reply.ok) return reply;
    return {
      ok: true,
      result: JSON.parse(sealer.for('command-replies').open(reply.sealedResult!)) as Record<string, unknown>,
    };
  }

  return { publish, send, replies, replyTo, replyGroup };
}
