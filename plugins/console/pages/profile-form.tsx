/**
 * The signed-in user's initials and colour (`PUT /auth/profile/avatar`): the form the start page
 * and the profile page both show, and what either does with it when posted.
 */
import type { FC } from 'hono/jsx';
import { ApiError } from '../api-client.ts';
import { failedForm, Field, Form, SelectField, type FormState } from '../forms.tsx';
import { COLOUR_OPTIONS } from '../layout.tsx';
import type { FormFields, PageContext, PageView, Redirect } from '../page.ts';

/** The profile form's fields: what it keeps after a refusal. */
export const PROFILE_FIELDS = ['initials', 'color'] as const;

/** Initials and colour, posted to `action` (a console path) with the intent `profile`. */
export const ProfileForm: FC<{ page: PageContext; action: string; form?: FormState }> = ({
  page,
  action,
  form,
}) => (
  <Form
    action={page.href(action)}
    csrf={page.csrf}
    intent="profile"
    state={form}
    label="Your avatar"
  >
    <Field
      name="initials"
      label="Initials"
      value={page.me.user.avatarInitials}
      state={form}
      hint="One to three letters shown where a picture would be."
    />
    <SelectField
      name="color"
      label="Colour"
      value={page.me.user.avatarColor}
      state={form}
      options={COLOUR_OPTIONS}
    />
    <button type="submit">Save profile</button>
  </Form>
);

/**
 * Saves the posted initials and colour, then goes to `done`; a refusal shows `view` again with
 * the API's message beside the field and what was typed.
 */
export async function saveProfile(
  page: PageContext,
  fields: FormFields,
  done: string,
  view: (form: FormState) => Promise<PageView>,
): Promise<PageView | Redirect> {
  try {
    await page.api.send('PUT', '/auth/profile/avatar', {
      initials: fields.initials,
      color: fields.color,
    });
    return { redirect: done };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    return { ...(await view(failedForm(fields, error, PROFILE_FIELDS))), status: 400 };
  }
}
