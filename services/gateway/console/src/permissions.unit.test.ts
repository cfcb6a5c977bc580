import { StaffRoles } from '@loan/contracts';
import { roleAllows, type Permission } from '../../src/domain/staff';
import { may, notAllowed, PERMISSIONS } from './permissions';

const ALL: Permission[] = ['read', 'applications', 'manage', 'developer', 'users'];

describe('what the console offers each role', () => {
  it('when the console decides what to offer, then its table is the gateway’s for every role and permission', () => {
    for (const role of StaffRoles) {
      for (const permission of ALL)
        expect([role, permission, PERMISSIONS[role].includes(permission)]).toEqual([
          role,
          permission,
          roleAllows(role, permission),
        ]);
    }
  });

  it('when the console is signed in with the API key, then everything is offered', () => {
    for (const permission of ALL) expect(may({ user: null }, permission)).toBe(true);
  });

  it('when a role may not, then the page says which roles may', () => {
    const viewer = { user: { userId: 'u1', email: 'v@lender.example', role: 'viewer' as const } };
    expect(may(viewer, 'applications')).toBe(false);
    expect(notAllowed(viewer, 'manage', 'confirm a review')).toBe(
      'Your role (viewer) does not allow you to confirm a review; an owner or credit manager may.',
    );
  });
});
