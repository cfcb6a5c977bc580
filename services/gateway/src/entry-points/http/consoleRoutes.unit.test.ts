import { roleAllows } from '../../domain/staff';
import { permissionFor } from './consoleRoutes';

describe('what each console call needs of the role', () => {
  it('when a call is made, then its permission follows from its method and path, owners only for users and unknown changes', () => {
    expect(
      [
        ['GET', '/applications'],
        ['GET', '/users'],
        ['POST', '/applications/initiate'],
        ['POST', '/applications/a1/review'],
        ['POST', '/applications/a1/review/confirm'],
        ['POST', '/policies/p1/activate'],
        ['POST', '/policies'],
        ['PATCH', '/client'],
        ['POST', '/webhooks/deliveries/replay'],
        ['DELETE', '/users/u1'],
        ['POST', '/something-new'],
      ].map(([method, path]) => permissionFor(method!, path!)),
    ).toEqual([
      'read',
      'users',
      'applications',
      'applications',
      'manage',
      'manage',
      'applications',
      'developer',
      'developer',
      'users',
      'users',
    ]);
  });

  it("when a credit officer would confirm a review, then the role does not allow it, and a credit manager's does", () => {
    const confirm = permissionFor('POST', '/applications/a1/review/confirm');
    expect(roleAllows('credit_officer', confirm)).toBe(false);
    expect(roleAllows('credit_manager', confirm)).toBe(true);
    expect(roleAllows('viewer', permissionFor('POST', '/applications/a1/review'))).toBe(false);
  });
});
