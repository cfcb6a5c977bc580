import type { SessionState, StaffRole } from './api';

/**
 * What the signed-in user's role lets the console offer. The gateway decides (every call of its
 * API checks the role, 403 otherwise); the page only leaves out or disables what would be
 * refused. The same table as the gateway's (`domain/staff.ts`; a unit test holds them together).
 */
export type Permission = 'read' | 'applications' | 'manage' | 'developer' | 'users';

export const PERMISSIONS: Record<StaffRole, readonly Permission[]> = {
  owner: ['read', 'applications', 'manage', 'developer', 'users'],
  developer: ['read', 'developer'],
  credit_officer: ['read', 'applications'],
  credit_manager: ['read', 'applications', 'manage'],
  viewer: ['read'],
};

const ROLE_NAMES: Record<StaffRole, string> = {
  owner: 'owner',
  developer: 'developer',
  credit_officer: 'credit officer',
  credit_manager: 'credit manager',
  viewer: 'viewer',
};
export const roleName = (role: StaffRole) => ROLE_NAMES[role];

/** Whether the session may do what a permission covers: a console signed in with the API key may do everything. */
export const may = (session: Pick<SessionState, 'user'> | null, permission: Permission) =>
  !session?.user || PERMISSIONS[session.user.role].includes(permission);

/** Why the page offers no control for something: the user's role, and the roles that may. */
export function notAllowed(session: Pick<SessionState, 'user'> | null, permission: Permission, what: string): string {
  const roles = (Object.keys(PERMISSIONS) as StaffRole[])
    .filter((role) => PERMISSIONS[role].includes(permission))
    .map(roleName);
  const who = roles.length > 1 ? `${roles.slice(0, -1).join(', ')} or ${roles.at(-1)}` : roles[0];
  const role = session?.user ? roleName(session.user.role) : '';
  return `Your role (${role}) does not allow you to ${what}; a${/^[aeiou]/.test(who ?? '') ? 'n' : ''} ${who} may.`;
}
