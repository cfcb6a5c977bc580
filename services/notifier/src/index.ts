export * from './config';
export * from './service';
export { sign, signatureHeaders, standardSignature } from './domain/deliverWebhook/signature';
export type { DeliveryView } from './domain/view';
