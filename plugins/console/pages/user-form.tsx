/**
 * The fields of a user as an administrator sets them — name, role, every access list picked by
 * name, LLM access, models and monthly cap — shared by "Create user", a user's page and "Create
 * invitation", and the API body they make. Administrators have every entity implicitly (the API
 * refuses lists for them), so for them only the LLM models are sent.
 */
import type { FC } from 'hono/jsx';
import type { ApiError } from '../api-client.ts';
import { CheckField, Field, failedForm, SelectField, type FormState } from '../forms.tsx';
import type { FormFields } from '../page.ts';
import { AccessPicker, pickedIds, pickerNames, placeAccessError } from './access-view.tsx';
import type { Catalog } from './catalog.ts';
import { wholeNumber } from './parts.tsx';

/** A user's settings as the form shows them (an existing user's, or a new one's defaults). */
export interface UserSettings {
  name: string;
  role: 'user' | 'admin';
  llmAccess: boolean;
  llmMonthlyTokenLimit: number | null;
  lists: Readonly<Record<string, readonly string[]>>;
}

export const NEW_USER: UserSettings = {
  name: '',
  role: 'user',
  llmAccess: false,
  llmMonthlyTokenLimit: null,
  lists: {},
};

const ROLES = [
  { value: 'user', label: 'User (uses what the lists allow)' },
  { value: 'admin', label: 'Administrator (runs the hub; uses every entity)' },
];

/** The body of `POST /admin/users`, `PUT /admin/users/:id` or `POST /admin/invited-users`. */
export function userBody(fields: FormFields, catalog: Catalog): Record<string, unknown> {
  const role = fields.role ?? 'user';
  const body: Record<string, unknown> = { name: fields.name ?? '', role };
  for (const entry of catalog) {
    if (entry.items === null || (role === 'admin' && entry.field !== 'llmModels')) continue;
    body[entry.field] = pickedIds(fields, entry.field);
  }
  body.llmAccess = fields.llmAccess === 'on';
  body.llmMonthlyTokenLimit = wholeNumber(fields.llmMonthlyTokenLimit) ?? null;
  return body;
}

/** The form again after the API refused it: every field as typed, the message at its field. */
export function refusedUser(
  fields: FormFields,
  error: ApiError,
  catalog: Catalog,
  extra: readonly string[] = [],
): FormState {
  const keep = [
    'name',
    'role',
    'llmAccess',
    'llmMonthlyTokenLimit',
    ...extra,
    ...catalog.flatMap((entry) => [entry.field, ...pickerNames(fields, entry.field)]),
  ];
  return placeAccessError(failedForm(fields, error, keep), error, catalog);
}

export const UserFields: FC<{
  catalog: Catalog;
  user: UserSettings;
  state?: FormState | undefined;
}> = ({ catalog, user, state }) => {
  const entities = catalog.filter((entry) => entry.field !== 'llmModels');
  const models = catalog.find((entry) => entry.field === 'llmModels');
  const limit = user.llmMonthlyTokenLimit === null ? '' : String(user.llmMonthlyTokenLimit);
  return (
    <>
      <Field name="name" label="Name" value={user.name} state={state} required maxlength={255} />
      <SelectField name="role" label="Role" value={user.role} state={state} options={ROLES} />
      <p class="note">
        The lists below apply to users; an administrator may use every entity whatever they say.
      </p>
      {entities.map((entry) => (
        <AccessPicker entry={entry} current={user.lists[entry.field] ?? []} state={state} />
      ))}
      <CheckField
        name="llmAccess"
        label="May use the LLM proxy"
        checked={user.llmAccess}
        state={state}
      />
      {models ? (
        <AccessPicker entry={models} current={user.lists.llmModels ?? []} state={state} />
      ) : null}
      <Field
        name="llmMonthlyTokenLimit"
        label="Monthly LLM token cap"
        hint="Tokens per calendar month (UTC); leave blank for no cap."
        value={limit}
        state={state}
        type="text"
        autocomplete="off"
      />
    </>
  );
};
