import { z } from 'zod';
import { InitiateRequest } from './api';
import { IsoTimestamp, Uuid } from './primitives';

/**
 * A secret sealed with the platform's data key (AES-256-GCM), as it travels on Kafka and sits
 * in the databases: never the plain text.
 */
export const SealedSecret = z.string().regex(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

const commandBase = {
  /** Unique per HTTP request; the reply carries it back. */
  commandId: Uuid,
  /** Reply topic of the gateway instance that waits for the answer. */
  replyTo: z.string(),
  clientId: z.string(),
  correlationId: z.string(),
  issuedAt: IsoTimestamp,
};

/** Commands the gateway sends to the applications service (imperative names). */
export const ApplicationCommand = z.discriminatedUnion('type', [
  z.object({
    ...commandBase,
    type: z.literal('InitiateApplication'),
    request: InitiateRequest,
    providerKey: SealedSecret,
  }),
  z.object({ ...commandBase, type: z.literal('FinalizeLinking'), applicationId: Uuid }),
  z.object({ ...commandBase, type: z.literal('AnalyzeApplication'), applicationId: Uuid }),
  z.object({
    ...commandBase,
    type: z.literal('RelinkAccount'),
    applicationId: Uuid,
    accountId: Uuid.nullable(),
    providerKey: SealedSecret,
  }),
  z.object({ ...commandBase, type: z.literal('GetApplication'), applicationId: Uuid }),
]);
export type ApplicationCommand = z.infer<typeof ApplicationCommand>;
export type ApplicationCommandType = ApplicationCommand['type'];

/**
 * Expected failures of a command, mapped to HTTP statuses only at the edge (gateway).
 */
export const CommandErrorCode = z.enum([
  'INVALID_STATE',
  'NOT_FOUND',
  'KEY_OWNED_BY_OTHER_CLIENT',
  'KEY_IN_USE',
  'NO_ACCOUNTS',
  'PROVIDER_UNAVAILABLE',
]);
export type CommandErrorCode = z.infer<typeof CommandErrorCode>;

export const CommandReply = z.discriminatedUnion('ok', [
  z.object({ commandId: Uuid, ok: z.literal(true), result: z.record(z.string(), z.unknown()) }),
  z.object({
    commandId: Uuid,
    ok: z.literal(false),
    code: CommandErrorCode,
    message: z.string(),
  }),
]);
export type CommandReply = z.infer<typeof CommandReply>;
