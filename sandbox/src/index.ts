export { loadConfig, type SandboxConfig } from './config';
export { parseDuration } from './duration';
export { createSandbox, type Sandbox, type SandboxDependencies } from './sandbox';
export * from './personas';
export { TEST_BVNS } from './bureau/profiles';
export { consumerHitResponse, consumerNoHitResponse } from './bureau/report';
export { TEST_CREDENTIALS } from './widget/routes';
export type { ProviderEvent, WebhookEnvelope } from './provider/webhooks';
