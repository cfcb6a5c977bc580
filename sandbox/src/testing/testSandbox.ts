import pino from 'pino';
import { loadConfig } from '../config';
import { createSandbox, type Sandbox } from '../sandbox';
import { startWebhookReceiver, type WebhookReceiver } from './webhookReceiver';

export interface TestSandbox {
  sandbox: Sandbox;
  /** Origin of the running sandbox. */
  url: string;
  webhooks: WebhookReceiver;
  /** Calls the provider API with a secret key. */
  api(
    path: string,
    init?: { method?: string; body?: unknown; key?: string | null },
    // Test code reads fields of many response shapes.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
  ): Promise<{ status: number; body: any }>;
  /** Runs `POST /v2/accounts/initiate` for a new customer and returns the widget address. */
  initiate(overrides?: Record<string, unknown>): Promise<string>;
  /** Runs `POST /sandbox/link`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  link(body: Record<string, unknown>): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/**
 * A sandbox on a free port with fast jobs and retries, posting its webhooks to a local
 * receiver. `env` overrides the sandbox's environment variables.
 */
export async function startTestSandbox(env: Record<string, string> = {}): Promise<TestSandbox> {
  const webhooks = await startWebhookReceiver();
  const config = loadConfig({
    SANDBOX_PORT: '0',
    PROVIDER_WEBHOOK_URL: webhooks.url,
    PROVIDER_WEBHOOK_SECRET: 'test-webhook-secret',
    SANDBOX_JOB_DELAY: '100ms',
    SANDBOX_WEBHOOK_RETRY_BASE: '50ms',
    ...env,
  });
  const sandbox = createSandbox(config, { logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) });
  const { url } = await sandbox.start();

  const request = async (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> }) => {
    const response = await fetch(`${url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };

  const api: TestSandbox['api'] = (path, init = {}) =>
    request(path, {
      ...init,
      headers: init.key === null ? {} : { 'mono-sec-key': init.key ?? 'test_sk_sandbox' },
    });

  return {
    sandbox,
    url,
    webhooks,
    api,
    initiate: async (overrides = {}) => {
      const { status, body } = await api('/v2/accounts/initiate', {
        body: {
          customer: { name: 'Samuel Olamide', email: 'samuel@example.com' },
          scope: 'auth',
          meta: { ref: 'application-1' },
          redirect_url: 'https://lender.example/linked',
          ...overrides,
        },
      });
      if (status !== 200) throw new Error(`initiate answered ${status}: ${JSON.stringify(body)}`);
      return body.data.mono_url as string;
    },
    link: (body) => request('/sandbox/link', { body }),
    stop: async () => {
      await sandbox.stop();
      await webhooks.close();
    },
  };
}
