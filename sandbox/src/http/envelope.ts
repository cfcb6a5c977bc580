/** The provider's response envelope: `{status, message, timestamp, data}`. */
export interface Envelope<T> {
  status: 'successful' | 'failed' | 'processing';
  message: string;
  timestamp: string;
  data: T;
}

export const successful = <T>(now: Date, message: string, data: T): Envelope<T> => ({
  status: 'successful',
  message,
  timestamp: now.toISOString(),
  data,
});

export const processing = <T>(now: Date, message: string, data: T): Envelope<T> => ({
  status: 'processing',
  message,
  timestamp: now.toISOString(),
  data,
});

export const failed = (now: Date, message: string): Envelope<null> => ({
  status: 'failed',
  message,
  timestamp: now.toISOString(),
  data: null,
});
