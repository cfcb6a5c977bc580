import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type StaffInvitation, type StaffRole, type StaffUser } from '../api';
import { when } from '../model';
import { Badge, ConfirmButton, Loading, PageHeading, Problem, ShownOnce, useLoad } from '../ui';

export const ROLES: readonly StaffRole[] = ['owner', 'developer', 'credit_officer', 'credit_manager', 'viewer'];
export const ROLE_NAMES: Record<StaffRole, string> = {
  owner: 'Owner',
  developer: 'Developer',
  credit_officer: 'Credit officer',
  credit_manager: 'Credit manager',
  viewer: 'Viewer',
};

const message = (e: unknown) => (e instanceof ApiError ? e.message : String(e));

function RoleSelect(props: {
  id: string;
  value: StaffRole;
  onChange: (role: StaffRole) => void;
  label: string;
  visibleLabel?: boolean;
}) {
  return (
    <>
      <label for={props.id} class={props.visibleLabel ? undefined : 'visually-hidden'}>
        {props.label}
      </label>
      <select
        id={props.id}
        value={props.value}
        onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value as StaffRole)}
      >
        {ROLES.map((role) => (
          <option key={role} value={role}>
            {ROLE_NAMES[role]}
          </option>
        ))}
      </select>
    </>
  );
}

function UserRow({ user, onChanged, self }: { user: StaffUser; onChanged: (notice: string) => void; self: boolean }) {
  const [role, setRole] = useState<StaffRole>(user.role);
  // A new role from the list (after a change) is the one selected; the row itself stays, with what it was asking.
  useEffect(() => setRole(user.role), [user.role]);
  const [error, setError] = useState<string | null>(null);
  const change = () =>
    api.changeRole(user.userId, role).then(
      () => onChanged(`${user.email} is now ${ROLE_NAMES[role]}; their sessions have ended.`),
      (e: unknown) => setError(message(e)),
    );
  const remove = () =>
    api.removeUser(user.userId).then(
      () => onChanged(`${user.email} was removed.`),
      (e: unknown) => setError(message(e)),
    );
  return (
    <tr>
      <th scope="row">{user.email}</th>
      <td data-label="Role">
        <div class="row-actions">
          <RoleSelect id={`role-${user.userId}`} value={role} onChange={setRole} label={`Role of ${user.email}`} />
          <button type="button" onClick={() => void change()} disabled={role === user.role}>
            Change role<span class="visually-hidden"> of {user.email}</span>
          </button>
        </div>
      </td>
      <td data-label="Status">
        <Badge value={user.status === 'active' ? 'ACTIVE' : 'INVITED'} />
        {user.invitationExpiresAt ? <span class="detail"> until {when(user.invitationExpiresAt)}</span> : null}
      </td>
      <td data-label="Authenticator">{user.totpEnabled ? 'Yes' : 'No'}</td>
      <td data-label="Access">
        {self ? (
          <span class="detail">You</span>
        ) : (
          <ConfirmButton
            label={`Remove ${user.email}`}
            confirmLabel="Remove now"
            warning={`${user.email} loses access at once; their sessions end.`}
            onConfirm={() => void remove()}
          />
        )}
        {error ? (
          <p class="inline-error" role="alert">
            {error}
          </p>
        ) : null}
      </td>
    </tr>
  );
}

/** The lender's staff, for an owner: invite by e-mail and role, change a role, remove. */
export function UsersPage({ selfId }: { selfId: string | null }) {
  const [loaded, reload] = useLoad(() => api.users(), 'users');
  const [invitation, setInvitation] = useState<StaffInvitation | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [role, setRole] = useState<StaffRole>('credit_officer');

  async function invite(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const email = (form.elements.namedItem('email') as HTMLInputElement).value.trim();
    setError(null);
    setNotice(null);
    try {
      setInvitation(await api.inviteUser(email, role));
      form.reset();
      reload();
    } catch (e) {
      setError(message(e));
    }
  }

  return (
    <>
      <PageHeading>Users</PageHeading>
      <section aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite a member of staff</h2>
        <form class="filters" onSubmit={(e) => void invite(e)}>
          <div class="field">
            <label for="invite-email">E-mail address</label>
            <input id="invite-email" name="email" type="email" autocomplete="off" required />
          </div>
          <div class="field">
            <RoleSelect id="invite-role" value={role} onChange={setRole} label="Role" visibleLabel />
          </div>
          <button type="submit">Invite</button>
        </form>
        {error ? (
          <p class="notice notice-error" role="alert">
            {error}
          </p>
        ) : null}
        {invitation ? (
          invitation.invitationUrl ? (
            <ShownOnce label={`Invitation link for ${invitation.email}`} value={invitation.invitationUrl}>
              <p>
                No e-mail is sent from this gateway: give the link to {invitation.email}. It works once, until{' '}
                {when(invitation.invitationExpiresAt!)}.
              </p>
            </ShownOnce>
          ) : (
            <p class="notice" role="status">
              The invitation was sent to {invitation.email}.
            </p>
          )
        ) : null}
      </section>
      <section aria-labelledby="users-heading">
        <h2 id="users-heading">Staff</h2>
        {notice ? (
          <p class="notice" role="status">
            {notice}
          </p>
        ) : null}
        {loaded.state === 'loading' ? <Loading what="the users" /> : null}
        {loaded.state === 'error' ? <Problem error={loaded.error} what="The users" /> : null}
        {loaded.state === 'ok' ? (
          <div class="table-scroll">
            <table class="data users">
              <thead>
                <tr>
                  <th scope="col">E-mail</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">Authenticator</th>
                  <th scope="col">Access</th>
                </tr>
              </thead>
              <tbody>
                {loaded.value.items.map((user) => (
                  <UserRow
                    key={user.userId}
                    user={user}
                    self={user.userId === selfId}
                    onChanged={(text) => {
                      setNotice(text);
                      reload();
                    }}
                  />
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
    </>
  );
}
