/**
 * A member's `/console`: their profile, a form for their initials and colour (`PUT
 * /auth/profile/avatar`), how many notices are unread, and the collections they may open
 * (`GET /collections`).
 */
import type { FC } from 'hono/jsx';
import type { FormState } from '../forms.tsx';
import { Avatar } from '../layout.tsx';
import type { Me, PageContext, PageView } from '../page.ts';
import { ProfileForm } from './profile-form.tsx';

export async function startView(page: PageContext, form?: FormState): Promise<PageView> {
  const [{ collections }, unread] = await Promise.all([
    page.api.get<{ collections: { id: string; name: string }[] }>('/collections'),
    page.api.get<{ count: number }>('/notices/unread-count'),
  ]);
  return {
    title: 'Start',
    body: (
      <StartBody
        page={page}
        me={page.me}
        collections={collections}
        unread={unread.count}
        form={form}
        saved={page.query('saved') !== undefined}
      />
    ),
  };
}

const StartBody: FC<{
  page: PageContext;
  me: Me;
  collections: { id: string; name: string }[];
  unread: number;
  form: FormState | undefined;
  saved: boolean;
}> = ({ page, me, collections, unread, form, saved }) => (
  <>
    {saved ? (
      <p class="notice" role="status">
        Profile saved.
      </p>
    ) : null}
    <div class="grid">
      <section class="card" aria-labelledby="profile-title">
        <h2 id="profile-title">Your profile</h2>
        <p>
          <Avatar initials={me.user.avatarInitials} color={me.user.avatarColor} />{' '}
          <b id="profile-name">{me.user.name}</b> <span class="muted">({me.user.role})</span>
        </p>
        <ProfileForm page={page} action="" form={form} />
        <p>
          <a href={page.href('/profile')}>Your picture and notifications</a>
        </p>
      </section>
      <section class="card" aria-labelledby="notices-title">
        <h2 id="notices-title">Notices</h2>
        <p id="unread">
          <a href={page.href('/notices')}>
            {unread === 0
              ? 'Nothing unread'
              : unread === 1
                ? '1 unread notice'
                : `${unread} unread notices`}
          </a>
        </p>
      </section>
      <section class="card" aria-labelledby="collections-title">
        <h2 id="collections-title">Your collections</h2>
        {collections.length === 0 ? (
          <p class="muted">You have no collections yet: ask an administrator for access.</p>
        ) : (
          <ul id="collections">
            {collections.map((collection) => (
              <li>
                <a href={page.href(`/collections/${encodeURIComponent(collection.id)}`)}>
                  {collection.name}
                </a>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  </>
);
