import type { IHeaders } from 'kafkajs';

/** A message as handlers see it: decoded and validated against the topic's schema. */
export interface InboundMessage<T = unknown> {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: T;
  headers: Record<string, string>;
  timestamp: string;
  /**
   * Keeps the message's offset (and every later one of its partition) from being committed
   * until `done` settles: for a handler that hands work over to go on after it returns, work
   * that a crash before it ends must find again by the message being handled again.
   */
  commitAfter?: (done: Promise<unknown>) => void;
}

/**
 * Lets `work` go on after the handler returns, with the message's offset held until it ends
 * (`commitAfter`); a message that cannot hold its offset (a handler called directly, outside a
 * consumer) waits for the work instead.
 */
export async function continueAfter(
  message: Pick<InboundMessage, 'commitAfter'>,
  work: Promise<unknown>,
): Promise<void> {
  if (message.commitAfter) message.commitAfter(work);
  else await work;
}

export interface OutboundMessage {
  key: string;
  value: unknown;
  headers?: Record<string, string>;
}

/** A handler's headers: the first value of each, as text. */
export function headersToRecord(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out[name] = first.toString();
  }
  return out;
}
