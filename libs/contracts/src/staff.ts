import { z } from 'zod';
import { EmailPattern } from './api';

/**
 * A lender's staff on the console. `owner`: everything, users included; `developer`: the webhook
 * endpoint, secrets, API key and delivery log; `credit_officer`: applications; `credit_manager`:
 * a credit officer who also activates and confirms; `viewer`: reads only.
 */
export const StaffRoles = ['owner', 'developer', 'credit_officer', 'credit_manager', 'viewer'] as const;
export const StaffRole = z.enum(StaffRoles, { error: `role must be one of ${StaffRoles.join(', ')}` });
export type StaffRole = z.infer<typeof StaffRole>;

const StaffEmail = z
  .string({ error: 'email is required and must be a string' })
  .trim()
  .toLowerCase()
  .max(254, 'email must be at most 254 characters')
  .pipe(z.email({ pattern: EmailPattern, error: 'email must be a valid e-mail address' }));

/** Body of `POST /api/users`: whom to invite, with which role. */
export const InviteUserRequest = z.strictObject(
  { email: StaffEmail, role: StaffRole },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? 'Unknown field name; only email and role are taken' : undefined,
  },
);
export type InviteUserRequest = z.infer<typeof InviteUserRequest>;

/** Body of `PATCH /api/users/:id`: the user's new role. */
export const UpdateUserRequest = z.strictObject(
  { role: StaffRole },
  {
    error: (issue) => (issue.code === 'unrecognized_keys' ? 'Unknown field name; only role can be changed' : undefined),
  },
);

/** Body of `POST /admin/clients/:id/owner`: the first owner of a lender. */
export const CreateOwnerRequest = z.strictObject(
  { email: StaffEmail },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? 'Unknown field name; only email is taken' : undefined) },
);

/** A member of the lender's staff; never a password, TOTP secret or invitation token. */
export const StaffUser = z.object({
  userId: z.string(),
  email: z.string(),
  role: StaffRole,
  /** `invited` until the invitation is accepted. */
  status: z.enum(['invited', 'active']),
  totpEnabled: z.boolean(),
  createdAt: z.string(),
  /** When the invitation lapses, while it is open. */
  invitationExpiresAt: z.string().nullable(),
});
export type StaffUser = z.infer<typeof StaffUser>;

export const StaffUserList = z.object({ items: z.array(StaffUser) });

/**
 * An invitation just made: the one-time link is in the answer (once) when no mailer sends it,
 * which is the case on a local stack, where it is also written to the log.
 */
export const StaffInvitation = StaffUser.extend({
  invitationUrl: z.string().optional(),
});
export type StaffInvitation = z.infer<typeof StaffInvitation>;
