/**
 * `/console/profile`: the signed-in user's own avatar — initials and colour, a picture uploaded or
 * removed (`PUT /auth/profile/avatar`, whose checks of type and size answer) — and which notices
 * they get (`GET|PUT /me/notification-settings`).
 */
import type { FC } from 'hono/jsx';
import { ApiError } from '../api-client.ts';
import { failedForm, Field, Form, SelectField, type FormState } from '../forms.tsx';
import { Avatar } from '../layout.tsx';
import { definePage, type FormFields, type PageContext, type PageView } from '../page.ts';
import { ProfileForm, saveProfile } from './profile-form.tsx';

const LEVELS = [
  { value: 'all', label: 'Every comment where I take part' },
  { value: 'mentions', label: 'Only when someone mentions me' },
  { value: 'none', label: 'None' },
];

const SAVED: Readonly<Record<string, string>> = {
  profile: 'Profile saved.',
  picture: 'Picture saved.',
  removed: 'Picture removed.',
  notifications: 'Notification setting saved.',
};

/** Which form a refusal belongs to, and its state. */
interface Failed {
  form: 'profile' | 'picture' | 'notifications';
  state: FormState;
}

/** Bytes as a `data:` URL (the API takes pictures so, and the page shows them so). */
function dataUrl(type: string, bytes: Uint8Array): string {
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return `data:${type};base64,${btoa(binary)}`;
}

const Picture: FC<{ page: PageContext; src: string | null }> = ({ page, src }) =>
  src ? (
    <img class="picture" src={src} alt={`Picture of ${page.me.user.name}`} width={96} height={96} />
  ) : (
    <Avatar initials={page.me.user.avatarInitials} color={page.me.user.avatarColor} />
  );

async function profileView(page: PageContext, failed?: Failed): Promise<PageView> {
  const { user } = page.me;
  const [image, settings] = await Promise.all([
    user.avatarImageUrl
      ? page.api.bytes(`/auth/users/${encodeURIComponent(user.id)}/avatar`)
      : null,
    page.api.get<{ level: string }>('/me/notification-settings'),
  ]);
  const src = image ? dataUrl(image.type, image.body) : null;
  const state = (form: Failed['form']) => (failed?.form === form ? failed.state : undefined);
  const saved = SAVED[page.query('saved') ?? ''];
  return {
    title: 'Your profile',
    body: (
      <>
        {saved ? (
          <p class="notice" role="status">
            {saved}
          </p>
        ) : null}
        <div class="grid">
          <section class="card" aria-labelledby="avatar-title">
            <h2 id="avatar-title">Avatar</h2>
            <p class="who-am-i">
              <Picture page={page} src={src} /> <b id="profile-name">{user.name}</b>{' '}
              <span class="muted">({user.role})</span>
            </p>
            <ProfileForm page={page} action="/profile" form={state('profile')} />
          </section>
          <section class="card" aria-labelledby="picture-title">
            <h2 id="picture-title">Your picture</h2>
            <Form
              action={page.href('/profile')}
              csrf={page.csrf}
              intent="picture"
              state={state('picture')}
              multipart
            >
              <Field
                name="picture"
                label="Picture"
                type="file"
                accept="image/png,image/jpeg,image/webp,image/gif"
                state={state('picture')}
                hint="JPEG, PNG, WebP or GIF, at most 200 KB. It replaces your initials."
              />
              <button type="submit">Upload picture</button>
            </Form>
            {src ? (
              <Form
                action={page.href('/profile')}
                csrf={page.csrf}
                intent="remove-picture"
                inline
                confirm="Remove your picture? Your initials show instead."
              >
                <button type="submit" class="quiet">
                  Remove picture
                </button>
              </Form>
            ) : null}
          </section>
          <section class="card" aria-labelledby="notifications-title">
            <h2 id="notifications-title">Notifications</h2>
            <Form
              action={page.href('/profile')}
              csrf={page.csrf}
              intent="notifications"
              state={state('notifications')}
              label="Your notifications"
            >
              <SelectField
                name="level"
                label="Notices about discussions"
                value={settings.level}
                state={state('notifications')}
                options={LEVELS}
              />
              <button type="submit">Save notifications</button>
            </Form>
          </section>
        </div>
      </>
    ),
  };
}

/** The uploaded picture as the API takes it; a message for the field when there is none. */
async function uploaded(page: PageContext): Promise<string> {
  const file = (await page.c.req.parseBody())['picture'];
  if (!(file instanceof File) || file.size === 0)
    throw new ApiError(400, 'picture: choose an image file to upload.', 'validation_failed');
  return dataUrl(file.type || 'application/octet-stream', new Uint8Array(await file.arrayBuffer()));
}

/** Runs `write`; the refusal of bad input shows `form` again with the API's message. */
async function attempt(
  page: PageContext,
  fields: FormFields,
  form: Failed['form'],
  keep: readonly string[],
  write: () => Promise<unknown>,
  done: string,
) {
  try {
    await write();
    return { redirect: `/profile?saved=${done}` };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    const state = failedForm(fields, error, keep, { imageDataUrl: 'picture' });
    return { ...(await profileView(page, { form, state })), status: 400 as const };
  }
}

export const profilePage = definePage({
  path: '/profile',
  summary: "The signed-in user's avatar, picture and notification setting",
  admin: false,
  nav: 'Profile',
  get: (page) => profileView(page),
  async post(page, fields) {
    const avatar = (body: object) => page.api.send('PUT', '/auth/profile/avatar', body);
    switch (fields.intent) {
      case 'profile':
        return saveProfile(page, fields, '/profile?saved=profile', (state) =>
          profileView(page, { form: 'profile', state }),
        );
      case 'picture':
        return attempt(
          page,
          fields,
          'picture',
          ['picture'],
          async () => avatar({ imageDataUrl: await uploaded(page) }),
          'picture',
        );
      case 'remove-picture':
        await avatar({ imageDataUrl: null });
        return { redirect: '/profile?saved=removed' };
      case 'notifications':
        return attempt(
          page,
          fields,
          'notifications',
          ['level'],
          () => page.api.send('PUT', '/me/notification-settings', { level: fields.level }),
          'notifications',
        );
      default:
        return { ...(await profileView(page)), status: 400 };
    }
  },
});
