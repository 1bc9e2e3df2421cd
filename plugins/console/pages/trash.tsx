/**
 * `/console/collections/:id/trash`: the folders, saved requests and documents deleted from a
 * collection that can come back (`GET /collections/:id/trash`, paged with its cursor), each with
 * Restore. Restoring is the history's: the record's newest revision is its deletion, and
 * `POST /<prefix>/:id/revisions/<that revision>/restore` brings it back as it was, under the same
 * rules as over the API (a refusal shows the API's message with its status).
 */
import type { FC } from 'hono/jsx';
import { ApiError } from '../api-client.ts';
import { Form } from '../forms.tsx';
import { historyKind, historyPath, ITEM_PREFIX } from '../history-kinds.ts';
import { definePage, type PageContext, type PageView } from '../page.ts';
import { actorName, Hidden, HistoryLink, Pager, When } from '../parts.tsx';
import type { CollectionSummary } from './collections.tsx';
import type { Refusal } from './history-view.tsx';

/** Entries per page. */
export const TRASH_PAGE = 20;

interface TrashItem {
  kind: 'request' | 'document' | 'folder';
  id: string;
  name: string;
  deletedAt: string;
  deletedBy: { id: string; name: string | null } | null;
}

const nounOf = (kind: string) => historyKind(ITEM_PREFIX[kind] ?? '')?.noun ?? kind;

const trashPath = (id: string) => `/collections/${encodeURIComponent(id)}/trash`;

const Restore: FC<{ page: PageContext; item: TrashItem }> = ({ page, item }) => (
  <Form
    action={page.href(trashPath(page.param('id')))}
    csrf={page.csrf}
    intent="restore"
    inline
    label={`Restore ${item.name}`}
    confirm={`Restore the ${nounOf(item.kind)} “${item.name}”?`}
  >
    <input type="hidden" name="kind" value={item.kind} />
    <input type="hidden" name="id" value={item.id} />
    <button type="submit" class="quiet">
      Restore<Hidden>{` ${item.name}`}</Hidden>
    </button>
  </Form>
);

async function trashView(page: PageContext, refusal?: Refusal): Promise<PageView> {
  const id = page.param('id');
  const cursor = page.query('cursor');
  const [trash, { collections }] = await Promise.all([
    page.api.get<{ items: TrashItem[]; nextCursor?: string }>(
      `${trashPath(id)}?limit=${TRASH_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    ),
    page.api.get<{ collections: CollectionSummary[] }>('/collections'),
  ]);
  const name = collections.find((collection) => collection.id === id)?.name ?? id;
  // `?restored=<prefix>/<id>`, set by the restore below.
  const [prefix, restoredId] = page.query('restored')?.split('/') ?? [];
  const back = historyKind(prefix ?? '')?.inCollection && restoredId ? historyKind(prefix!)! : null;
  return {
    title: `Trash of “${name}”`,
    status: refusal?.status ?? 200,
    body: (
      <>
        {back ? (
          <p class="notice" role="status">
            {`Restored the ${back.noun}: it is back in the collection. `}
            <a href={page.href(historyPath(back.prefix, restoredId!))}>See its history</a>
          </p>
        ) : null}
        {refusal ? (
          <p class="notice bad" role="alert" id="refusal">
            {refusal.message}
          </p>
        ) : null}
        <p class="links">
          <a href={page.href(`/collections/${encodeURIComponent(id)}`)}>Collection contents</a>
        </p>
        <section class="card" aria-labelledby="trash-title">
          <h2 id="trash-title">Deleted, can be restored</h2>
          {trash.items.length === 0 ? (
            <p class="muted" id="empty">
              Nothing here: no folder, saved request or document deleted from this collection can be
              restored.
            </p>
          ) : (
            <div class="scroll" tabindex={0} role="region" aria-labelledby="trash-title">
              <table id="trash">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Deleted</th>
                    <th scope="col">By</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {trash.items.map((item) => (
                    <tr>
                      <td>{item.name}</td>
                      <td>{nounOf(item.kind)}</td>
                      <td>
                        <When at={item.deletedAt} />
                      </td>
                      <td>{actorName(item.deletedBy)}</td>
                      <td class="actions">
                        <HistoryLink
                          page={page}
                          prefix={ITEM_PREFIX[item.kind]!}
                          id={item.id}
                          name={item.name}
                        />
                        <Restore page={page} item={item} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <Pager page={page} path={trashPath(id)} next={trash.nextCursor} what="deletions" />
        </section>
      </>
    ),
  };
}

export const trashPage = definePage({
  path: '/collections/:id/trash',
  summary: "A collection's deleted folders, saved requests and documents, with Restore",
  admin: false,
  get: (page) => trashView(page),
  async post(page, fields) {
    const prefix = ITEM_PREFIX[fields.kind ?? ''];
    if (fields.intent !== 'restore' || !prefix || !fields.id)
      return { ...(await trashView(page)), status: 400 };
    const revisions = `/${prefix}/${encodeURIComponent(fields.id)}/revisions`;
    try {
      const [deletion] = (
        await page.api.get<{ revisions: { id: string; action: string }[] }>(`${revisions}?limit=1`)
      ).revisions;
      if (deletion?.action !== 'deleted')
        return trashView(page, {
          message: `This ${nounOf(fields.kind!)} is not in the trash any more: someone restored it, or its history is gone.`,
          status: 409,
        });
      await page.api.send('POST', `${revisions}/${encodeURIComponent(deletion.id)}/restore`);
    } catch (error) {
      if (!(error instanceof ApiError) || ![403, 404, 409].includes(error.status)) throw error;
      return trashView(page, { message: error.message, status: error.status as Refusal['status'] });
    }
    const restored = encodeURIComponent(`${prefix}/${fields.id}`);
    return { redirect: `${trashPath(page.param('id'))}?restored=${restored}` };
  },
});
