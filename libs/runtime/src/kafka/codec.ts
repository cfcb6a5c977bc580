import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type { JsonOptions } from '@kafkajs/confluent-schema-registry/dist/@types';
import { schemaForTopic, subjectFor } from '@loan/contracts';
import { z } from 'zod';
import { ServiceError } from '../errors';

type JsonValidator = NonNullable<JsonOptions['ajvInstance']>;

/**
 * The registry client's JSON Schema validator, which accepts every value: zod checks each
 * value before it is encoded and again after it is decoded, against the schema the registered
 * JSON Schema is derived from, so a second check (ajv's, on both sides) would only cost CPU.
 */
const validatedByZod: JsonValidator = {
  addSchema: (() => validatedByZod) as unknown as JsonValidator['addSchema'],
  compile: () => Object.assign(() => true, { errors: null }) as unknown as ReturnType<JsonValidator['compile']>,
};

/** How long one schema-registry request may take (each retry of a lookup gets as long again). */
const REGISTRY_TIMEOUT_MS = 10_000;

/**
 * Encodes and decodes values through the schema registry (Confluent wire format). The JSON
 * Schema of each subject is derived from the zod schema in libs/contracts and registered on
 * first use with BACKWARD compatibility; values are validated by zod.
 */
export function createCodec(
  registryUrl: string,
  schemaOf: (topic: string) => z.ZodType = schemaForTopic,
  options: {
    /**
     * Limit of each registry request. The client sets none, so a registry that accepts a
     * connection and never answers would hold every publish and consume of a schema not
     * cached yet for good: a handler waiting on it stops its partition while /readyz, which
     * asks the broker and the database, stays green.
     */
    registryTimeoutMs?: number;
  } = {},
) {
  const timeout = options.registryTimeoutMs ?? REGISTRY_TIMEOUT_MS;
  const registry = new SchemaRegistry(
    {
      host: registryUrl,
      retry: { retries: 5, initialRetryTimeInSecs: 0.2 },
      // mappersmith's own timeout, set on every request that has none.
      middlewares: [
        () => ({
          async prepareRequest(next) {
            const request = await next();
            return request.timeout() ? request : request.enhance({ timeout });
          },
        }),
      ],
    },
    { [SchemaType.JSON]: { ajvInstance: validatedByZod } },
  );
  const ids = new Map<string, Promise<number>>();

  /**
   * Registers the topic's schema. A subject's first registration also sets its compatibility,
   * and processes starting together race for that: Apicurio refuses the second setting with
   * 409 ("a rule named COMPATIBILITY already exists"), and a process that looks between the
   * first one's registration and its setting sees the default (NONE) and refuses to go on. Both
   * are transient, as are a request that got no answer in time (a registry busy writing its own
   * Kafka log) and a 5xx: the process tries again shortly, up to a few times. Registering a
   * schema again is harmless: the registry answers the id it already gave it.
   */
  async function register(topic: string, subject: string): Promise<number> {
    const schema = {
      type: SchemaType.JSON,
      schema: JSON.stringify(z.toJSONSchema(schemaOf(topic), { target: 'draft-7', unrepresentable: 'any' })),
    } as const;
    for (let attempt = 1; ; attempt++) {
      try {
        return (await registry.register(schema, { subject })).id;
      } catch (error) {
        const { status, name, message } = error as { status?: number; name?: string; message?: string };
        const racing = status === 409 || name === 'ConfluentSchemaRegistryCompatibilityError';
        // mappersmith reports its own timeout as a ResponseError with status 400.
        const unanswered =
          name === 'ResponseError' && ((status ?? 0) >= 500 || /\bTimeout \(\d+ms\)/.test(message ?? ''));
        if (!(racing || unanswered) || attempt >= 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }

  function schemaId(topic: string): Promise<number> {
    const subject = subjectFor(topic);
    let id = ids.get(subject);
    if (!id) {
      id = register(topic, subject);
      id.catch(() => ids.delete(subject));
      ids.set(subject, id);
    }
    return id;
  }

  return {
    registry,
    schemaId,
    async encode(topic: string, value: unknown): Promise<Buffer> {
      const parsed = schemaOf(topic).parse(value);
      return registry.encode(await schemaId(topic), parsed);
    },
    /**
     * Decodes and validates; throws on a message that is not what the topic promises. When the
     * registry cannot be asked for the message's schema (no answer in time, refused, 5xx), the
     * error is retriable: the message may well be sound, and dead-lettering it would take it
     * out of the pipeline. A schema id the registry says it does not know (404) is poison.
     */
    async decode(topic: string, buffer: Buffer): Promise<unknown> {
      let raw: unknown;
      try {
        raw = await registry.decode(buffer);
      } catch (error) {
        const { name, status, message } = error as { name?: string; status?: number; message?: string };
        if (name === 'ResponseError' && status !== 404) {
          throw new ServiceError(`The schema registry could not be asked: ${message}`, {
            retriable: true,
            cause: error,
          });
        }
        throw error;
      }
      return schemaOf(topic).parse(raw);
    },
  };
}
export type Codec = ReturnType<typeof createCodec>;
