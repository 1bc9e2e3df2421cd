/**
 * Access lists as people read and pick them: by name, the wildcard as "all", and an id that names
 * nothing any more (deleted since) as a warning. The picker is plain HTML: a choice between "all"
 * (`*`) and "only these", then a checkbox per thing (`<field>:<id>`), so it works without
 * script and a refused form keeps every tick.
 */
import type { FC } from 'hono/jsx';
import { WILDCARD, type AccessField } from '../../../kernel/identity/access.ts';
import type { ApiError } from '../api-client.ts';
import { fieldId, type FormState } from '../forms.tsx';
import type { FormFields } from '../page.ts';
import { pluralTitle, type Catalog, type CatalogEntry } from './catalog.ts';

/** How many names a summary shows before "and N more". */
const SHOWN = 4;

/** The ids of one list, named where they name something; `stale` those that name nothing. */
export function resolveList(entry: CatalogEntry, ids: readonly string[]) {
  const named: string[] = [];
  const stale: string[] = [];
  for (const id of ids) {
    if (id === WILDCARD) continue;
    const name = entry.names.get(id);
    if (name === undefined && entry.items !== null) stale.push(id);
    else named.push(name ?? id);
  }
  return { all: ids.includes(WILDCARD), named, stale };
}

/** One list in a sentence: "all", "none", or names, with the ids that name nothing flagged. */
export const AccessSummary: FC<{ entry: CatalogEntry; ids: readonly string[] }> = ({
  entry,
  ids,
}) => {
  const { all, named, stale } = resolveList(entry, ids);
  const more = named.length - SHOWN;
  return (
    <>
      {all ? <span>all ({WILDCARD})</span> : null}
      {!all && named.length === 0 && stale.length === 0 ? <span class="muted">none</span> : null}
      {named.length > 0 ? (
        <span>
          {named.slice(0, SHOWN).join(', ')}
          {more > 0 ? ` and ${more} more` : ''}
        </span>
      ) : null}
      {stale.map((id) => (
        <span class="bad warn">
          {' '}
          ⚠ unknown {entry.noun} id “{id}”
        </span>
      ))}
    </>
  );
};

/** The ids a submitted picker holds: `["*"]` for all, else the ticked ones. */
export function pickedIds(fields: FormFields, field: AccessField): string[] {
  if (fields[field] === WILDCARD) return [WILDCARD];
  const prefix = `${field}:`;
  return Object.keys(fields)
    .filter((name) => name.startsWith(prefix) && fields[name] === 'on')
    .map((name) => name.slice(prefix.length));
}

/** The form's names of a picker as submitted (what a refused form keeps). */
export const pickerNames = (fields: FormFields, field: AccessField) =>
  Object.keys(fields).filter((name) => name === field || name.startsWith(`${field}:`));

/**
 * A refusal about an access list ("Unknown collection id: x.", "<field>: …") placed at
 * its picker; anything else as it was.
 */
export function placeAccessError(state: FormState, error: ApiError, catalog: Catalog): FormState {
  const entry = catalog.find(
    (candidate) =>
      error.message.startsWith(`${candidate.field}: `) ||
      error.message.startsWith(`Unknown ${candidate.noun} id`),
  );
  if (!entry) return state;
  const { message: _moved, ...rest } = state;
  return { ...rest, errors: { ...state.errors, [entry.field]: error.message } };
}

/** A picker's state: from a refused form when there is one, else from the stored list. */
function picked(field: AccessField, current: readonly string[], state: FormState | undefined) {
  if (!state) return { all: current.includes(WILDCARD), ids: new Set(current) };
  const prefix = `${field}:`;
  const ids = Object.keys(state.values)
    .filter((name) => name.startsWith(prefix) && state.values[name] === 'on')
    .map((name) => name.slice(prefix.length));
  return { all: state.values[field] === WILDCARD, ids: new Set(ids) };
}

/** The choice of one access list by name: all, or the ticked things; stale ids can be unticked. */
export const AccessPicker: FC<{
  entry: CatalogEntry;
  current: readonly string[];
  state?: FormState | undefined;
}> = ({ entry, current, state }) => {
  const { field, noun, items } = entry;
  const title = pluralTitle(field);
  const error = state?.errors[field];
  const errorId = `${fieldId(field)}-error`;
  if (items === null)
    return (
      <fieldset class="picker">
        <legend>{title}</legend>
        <p class="note">This hub offers no {noun}s (not configured); the list stays as it is.</p>
      </fieldset>
    );
  const chosen = picked(field, current, state);
  const stale = [...chosen.ids].filter((id) => id !== WILDCARD && !entry.names.has(id));
  // Ids of stale entries may hold anything: the boxes are numbered instead.
  const box = (id: string, label: string, index: number, warn = false) => {
    const boxId = `${fieldId(field)}-${index}`;
    return (
      <div class="check">
        <input type="checkbox" id={boxId} name={`${field}:${id}`} checked={chosen.ids.has(id)} />
        <label for={boxId} class={warn ? 'bad' : undefined}>
          {label}
        </label>
      </div>
    );
  };
  return (
    <fieldset
      class={error ? 'picker invalid' : 'picker'}
      id={fieldId(field)}
      aria-describedby={error ? errorId : undefined}
    >
      <legend>{title}</legend>
      <div class="check">
        <input
          type="radio"
          id={`${fieldId(field)}-all`}
          name={field}
          value={WILDCARD}
          checked={chosen.all}
        />
        <label for={`${fieldId(field)}-all`}>
          All {noun}s, also those made later ({WILDCARD})
        </label>
      </div>
      <div class="check">
        <input
          type="radio"
          id={`${fieldId(field)}-some`}
          name={field}
          value="some"
          checked={!chosen.all}
        />
        <label for={`${fieldId(field)}-some`}>Only those ticked below</label>
      </div>
      <div class="choices">
        {items.length === 0 ? <p class="note muted">No {noun}s yet.</p> : null}
        {items.map((item, index) => box(item.id, item.name, index))}
        {stale.map((id, index) =>
          box(
            id,
            `⚠ Unknown ${noun} id “${id}” (names nothing; untick it)`,
            items.length + index,
            true,
          ),
        )}
      </div>
      {error ? (
        <p class="error" id={errorId}>
          {error}
        </p>
      ) : null}
    </fieldset>
  );
};
