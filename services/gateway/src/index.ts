export * from './config';
export * from './service';
export type { InvitationMailer } from './data-access/staffAccounts';
