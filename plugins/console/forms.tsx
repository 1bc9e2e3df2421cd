/**
 * Form helpers every console page uses: a form that carries the session's form token (and the
 * name of its action, when a page has several), labelled fields that show the API's message
 * beside the field it names and keep what was typed, and {@link failedForm} to turn an API
 * refusal into that state.
 */
import type { Child, FC } from 'hono/jsx';
import { ApiError } from './api-client.ts';
import type { FormFields } from './page.ts';

/** What a form shows again after a refusal: the values typed, and messages by field. */
export interface FormState {
  values: Readonly<Record<string, string>>;
  errors: Readonly<Record<string, string>>;
  /** A message no field of the form owns, shown above the fields. */
  message?: string;
}

/**
 * The state after the API refused `fields`: its message beside the field it names (when the form
 * has a field of that name), else above the form. `keep` are the fields typed again (never a
 * secret). `aliases` maps the API's field names to the form's (`name` → `userName`).
 */
export function failedForm(
  fields: FormFields,
  error: ApiError,
  keep: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): FormState {
  const values = Object.fromEntries(
    keep.flatMap((name) => (name in fields ? [[name, fields[name]!]] : [])),
  );
  const field = error.field === null ? null : (aliases[error.field] ?? error.field);
  if (field !== null && keep.includes(field)) return { values, errors: { [field]: error.message } };
  return { values, errors: {}, message: error.message };
}

/** The id of a field's input, for labels and tests. */
export const fieldId = (name: string) => `f-${name}`;

/** The message of a refused form that no field owns, above the fields. */
export const FormMessage: FC<{ state?: FormState | undefined }> = ({ state }) =>
  state?.message ? (
    <p class="notice bad" role="alert">
      {state.message}
    </p>
  ) : null;

/**
 * A POST form of the session: its form token, the action's name (`intent`, when the page has
 * several forms), a message no field owns, then the fields. `confirm` asks before sending (with
 * the script; without it the form sends at once).
 */
export const Form: FC<{
  action: string;
  csrf: string;
  intent?: string;
  state?: FormState | undefined;
  confirm?: string;
  inline?: boolean;
  label?: string;
  /** Sends files (`multipart/form-data`); the page reads them with `page.c.req.parseBody()`. */
  multipart?: boolean;
  children?: Child;
}> = (props) => (
  <form
    method="post"
    action={props.action}
    enctype={props.multipart ? 'multipart/form-data' : undefined}
    class={props.inline ? undefined : 'stack'}
    data-confirm={props.confirm}
    aria-label={props.label}
  >
    <input type="hidden" name="csrf" value={props.csrf} />
    {props.intent ? <input type="hidden" name="intent" value={props.intent} /> : null}
    <FormMessage state={props.state} />
    {props.children}
  </form>
);

interface FieldProps {
  name: string;
  label: string;
  state?: FormState | undefined;
  /** The value shown when the form has not been sent. */
  value?: string;
  hint?: string;
}

/** The parts every field shares: ids, the message, and what describes the control. */
function fieldParts(props: FieldProps) {
  const id = fieldId(props.name);
  const error = props.state?.errors[props.name];
  const described = [props.hint ? `${id}-hint` : '', error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return {
    id,
    error,
    value: props.state?.values[props.name] ?? props.value ?? '',
    control: {
      id,
      name: props.name,
      'aria-invalid': error ? ('true' as const) : undefined,
      'aria-describedby': described || undefined,
    },
    around: (control: Child) => (
      <div class="field">
        <label for={id}>{props.label}</label>
        {props.hint ? (
          <p class="note" id={`${id}-hint`}>
            {props.hint}
          </p>
        ) : null}
        {control}
        {error ? (
          <p class="error" id={`${id}-error`}>
            {error}
          </p>
        ) : null}
      </div>
    ),
  };
}

/** A labelled text input (any `type`) that keeps what was typed and shows its error. */
export const Field: FC<
  FieldProps & {
    type?: string;
    required?: boolean;
    autocomplete?: string;
    maxlength?: number;
    /** The file types a `type="file"` input offers. */
    accept?: string;
  }
> = (props) => {
  const parts = fieldParts(props);
  return parts.around(
    <input
      {...parts.control}
      type={props.type ?? 'text'}
      accept={props.accept}
      value={props.type === 'password' || props.type === 'file' ? undefined : parts.value}
      required={props.required}
      autocomplete={props.autocomplete}
      maxlength={props.maxlength}
    />,
  );
};

/** A labelled choice among `options` (value and label). */
export const SelectField: FC<
  FieldProps & { options: readonly { value: string; label: string }[] }
> = (props) => {
  const parts = fieldParts(props);
  return parts.around(
    <select {...parts.control}>
      {props.options.map((option) => (
        <option value={option.value} selected={option.value === parts.value}>
          {option.label}
        </option>
      ))}
    </select>,
  );
};

/** A labelled checkbox (sent as `on` when ticked) that keeps its state after a refusal. */
export const CheckField: FC<FieldProps & { checked?: boolean }> = (props) => {
  const parts = fieldParts(props);
  const checked = props.state ? props.state.values[props.name] === 'on' : props.checked;
  return (
    <div class="check">
      <input {...parts.control} type="checkbox" checked={checked} />
      <label for={parts.id}>{props.label}</label>
      {props.hint ? (
        <p class="note" id={`${parts.id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {parts.error ? (
        <p class="error" id={`${parts.id}-error`}>
          {parts.error}
        </p>
      ) : null}
    </div>
  );
};
