/**
 * A member's `/console`: their profile, a form for their initials and colour (`PUT
 * /auth/profile/avatar`), and the collections they may open (`GET /collections`).
 */
import type { FC } from 'hono/jsx';
import { Field, Form, SelectField, type FormState } from '../forms.tsx';
import { Avatar, COLOUR_OPTIONS } from '../layout.tsx';
import type { Me, PageContext, PageView } from '../page.ts';

/** The profile form's fields: what it keeps after a refusal. */
export const PROFILE_FIELDS = ['initials', 'color'] as const;

export async function startView(page: PageContext, form?: FormState): Promise<PageView> {
  const { collections } = await page.api.get<{ collections: { id: string; name: string }[] }>(
    '/collections',
  );
  return {
    title: 'Start',
    body: (
      <StartBody
        page={page}
        me={page.me}
        collections={collections}
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
  form: FormState | undefined;
  saved: boolean;
}> = ({ page, me, collections, form, saved }) => (
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
        <Form
          action={page.href('')}
          csrf={page.csrf}
          intent="profile"
          state={form}
          label="Your avatar"
        >
          <Field
            name="initials"
            label="Initials"
            value={me.user.avatarInitials}
            state={form}
            hint="One to three letters shown where a picture would be."
          />
          <SelectField
            name="color"
            label="Colour"
            value={me.user.avatarColor}
            state={form}
            options={COLOUR_OPTIONS}
          />
          <button type="submit">Save profile</button>
        </Form>
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
