/**
 * What the history page shows: the outcome of a restore, where the record stands, a form to
 * choose two versions and the layout, their diff with Restore for the older one, and the list of
 * revisions (who, when), each with Compare and Restore.
 */
import type { FC } from 'hono/jsx';
import type { RecordDiff } from '../diff.ts';
import { DiffView, type DiffLayout } from '../diff-view.tsx';
import { Form } from '../forms.tsx';
import { historyPath, type HistoryKind } from '../history-kinds.ts';
import type { PageContext } from '../page.ts';
import { actorName, Hidden, Pager, When } from '../parts.tsx';

/** A refused restore: the API's message and status. */
export interface Refusal {
  message: string;
  status: 403 | 404 | 409;
}

/** A revision as `GET /<prefix>/:id/revisions` lists it. */
export interface Revision {
  id: string;
  version: number;
  action: 'created' | 'updated' | 'moved' | 'deleted' | 'restored';
  at: string;
  actor: { id: string; name: string | null } | null;
}

/** A revision with the record as it was (`GET /<prefix>/:id/revisions/:revisionId`). */
export interface Shown {
  revision: Revision;
  record: Record<string, unknown>;
}

interface Props {
  page: PageContext;
  kind: HistoryKind;
  id: string;
  list: { revisions: Revision[]; nextCursor?: string };
  newest: Revision | null;
  from: Shown | null;
  to: Shown | null;
  diff: RecordDiff | null;
  layout: DiffLayout;
  refusal: Refusal | undefined;
}

const describe = (revision: Revision) =>
  `version ${revision.version}, ${revision.action} by ${actorName(revision.actor)}`;

/** The diff's left side, in words (nothing: the record's first version, or none the reader may see). */
const olderText = (from: Shown | null, to: Shown) =>
  from
    ? `From ${describe(from.revision)}`
    : to.revision.version === 1
      ? 'From nothing (before it was created)'
      : 'From nothing (no earlier version you may see)';

/** The option text of a version (plain text: no markup in an option). */
const optionText = (revision: Revision) =>
  `Version ${revision.version} · ${revision.action} by ${actorName(revision.actor)} · ${revision.at.slice(0, 16).replace('T', ' ')} UTC`;

/** Restore `revision` (not offered for the record as it is now); `spelled`: the version visible. */
const RestoreForm: FC<{ props: Props; revision: Revision; name: string; spelled?: boolean }> = ({
  props,
  revision,
  name,
  spelled = false,
}) => (
  <Form
    action={props.page.href(historyPath(props.kind.prefix, props.id))}
    csrf={props.page.csrf}
    intent="restore"
    inline
    label={`Restore version ${revision.version}`}
    confirm={`Restore version ${revision.version} of “${name}”? Its content becomes the current version; the history keeps every version.`}
  >
    <input type="hidden" name="revision" value={revision.id} />
    <input type="hidden" name="version" value={String(revision.version)} />
    <button type="submit" class="quiet">
      {spelled ? (
        `Restore version ${revision.version}`
      ) : (
        <>
          Restore<Hidden>{` version ${revision.version}`}</Hidden>
        </>
      )}
    </button>
  </Form>
);

/**
 * Whether Restore is offered for `revision`: not for the record as it is now (restoring it would
 * change nothing), nor for a deletion while the record exists (the API answers 409: the deletion
 * was undone already; its content is the version before it).
 */
const restorable = (props: Props, revision: Revision) =>
  revision.action === 'deleted'
    ? props.newest?.action === 'deleted'
    : props.newest?.id !== revision.id;

const Where: FC<{ props: Props }> = ({ props }) => {
  const { page, kind, id, to, newest } = props;
  const collectionId = kind.prefix === 'collections' ? id : to?.record['collectionId'];
  return (
    <section class="card" aria-labelledby="record-title">
      <h2 id="record-title">Where it stands</h2>
      <p id="standing">
        {newest === null ? (
          `No revisions of this ${kind.noun} are kept (its history was purged or has expired).`
        ) : newest.action === 'deleted' ? (
          <>
            Deleted <When at={newest.at} /> by {actorName(newest.actor)}. Restore a version to bring
            it back.
          </>
        ) : (
          <>
            Version {newest.version}, {newest.action} <When at={newest.at} /> by{' '}
            {actorName(newest.actor)}.
          </>
        )}
      </p>
      {typeof collectionId === 'string' && (kind.inCollection || kind.prefix === 'collections') ? (
        <p class="links">
          <a href={page.href(`/collections/${encodeURIComponent(collectionId)}`)}>
            Collection contents
          </a>
          <a href={page.href(`/collections/${encodeURIComponent(collectionId)}/trash`)}>Trash</a>
        </p>
      ) : null}
    </section>
  );
};

const Compare: FC<{ props: Props; to: Shown }> = ({ props, to }) => {
  const { page, kind, id, list, from, diff, layout } = props;
  const known = [...list.revisions];
  for (const side of [to.revision, from?.revision])
    if (side && !known.some((revision) => revision.id === side.id)) known.push(side);
  known.sort((a, b) => b.version - a.version);
  const name = String(to.record['name'] ?? id);
  return (
    <section class="card" aria-labelledby="compare-title">
      <h2 id="compare-title">Compare versions</h2>
      <form method="get" action={page.href(historyPath(kind.prefix, id))} class="compare">
        {page.query('cursor') ? (
          <input type="hidden" name="cursor" value={page.query('cursor')} />
        ) : null}
        <div class="field">
          <label for="f-from">From</label>
          <select id="f-from" name="from">
            {known.map((revision) => (
              <option value={revision.id} selected={revision.id === from?.revision.id}>
                {optionText(revision)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-to">To</label>
          <select id="f-to" name="to">
            {known.map((revision) => (
              <option value={revision.id} selected={revision.id === to.revision.id}>
                {optionText(revision)}
              </option>
            ))}
          </select>
        </div>
        <fieldset class="choice">
          <legend>Show</legend>
          <label>
            <input type="radio" name="view" value="split" checked={layout === 'split'} /> Side by
            side
          </label>
          <label>
            <input type="radio" name="view" value="unified" checked={layout === 'unified'} />{' '}
            Unified
          </label>
        </fieldset>
        <button type="submit">Compare</button>
      </form>
      <h3 id="diff-title">{`${olderText(from, to)} to ${describe(to.revision)}`}</h3>
      {diff ? (
        <DiffView
          diff={diff}
          layout={layout}
          sides={{
            old: from ? `Version ${from.revision.version}` : 'Before',
            new: `Version ${to.revision.version}`,
          }}
        />
      ) : null}
      {from && restorable(props, from.revision) ? (
        <RestoreForm props={props} revision={from.revision} name={name} spelled />
      ) : null}
    </section>
  );
};

const Revisions: FC<{ props: Props; name: string }> = ({ props, name }) => {
  const { page, kind, id, list, layout } = props;
  const compare = (to: Revision, from: Revision | undefined) => {
    const query = new URLSearchParams({ ...(from ? { from: from.id } : {}), to: to.id });
    if (layout === 'unified') query.set('view', 'unified');
    const cursor = page.query('cursor');
    if (cursor) query.set('cursor', cursor);
    return page.href(`${historyPath(kind.prefix, id)}?${query}`);
  };
  return (
    <section class="card" aria-labelledby="revisions-title">
      <h2 id="revisions-title">Revisions</h2>
      <div class="scroll" tabindex={0} role="region" aria-labelledby="revisions-title">
        <table id="revisions">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Change</th>
              <th scope="col">Who</th>
              <th scope="col">When</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.revisions.map((revision, index) => (
              <tr>
                <td>{revision.version}</td>
                <td>{revision.action}</td>
                <td>{actorName(revision.actor)}</td>
                <td>
                  <When at={revision.at} />
                </td>
                <td class="actions">
                  <a href={compare(revision, list.revisions[index + 1])}>
                    Compare<Hidden>{` version ${revision.version} with the one before`}</Hidden>
                  </a>
                  {restorable(props, revision) ? (
                    <RestoreForm props={props} revision={revision} name={name} />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager
        page={page}
        path={historyPath(kind.prefix, id)}
        next={list.nextCursor}
        what="revisions"
        extra={{ view: layout === 'unified' ? 'unified' : undefined }}
      />
    </section>
  );
};

export const HistoryBody: FC<Props> = (props) => {
  const restored = props.page.query('restored');
  const name = String(props.to?.record['name'] ?? props.id);
  return (
    <>
      {restored && props.newest ? (
        <p class="notice" role="status">
          Restored version {restored}: it is now version {props.newest.version}.
        </p>
      ) : null}
      {props.refusal ? (
        <p class="notice bad" role="alert" id="refusal">
          {props.refusal.message}
        </p>
      ) : null}
      <Where props={props} />
      {props.to ? <Compare props={props} to={props.to} /> : null}
      {props.list.revisions.length > 0 ? <Revisions props={props} name={name} /> : null}
    </>
  );
};
