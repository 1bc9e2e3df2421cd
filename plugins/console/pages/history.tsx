/**
 * `/console/history/<prefix>/:id`: a record's revisions (who, when; paged as the API pages them),
 * the diff of any two versions, side by side or unified (a GET form chooses), and Restore (a POST
 * through `POST /<prefix>/:id/revisions/:revisionId/restore`). Everything is the API's answer as
 * the signed-in user: a revision written where they may not go is not listed, and asking for it
 * gets the API's 403; a refused restore shows the API's message with its status.
 */
import { ApiError, type ConsoleApi } from '../api-client.ts';
import { diffRecords } from '../diff.ts';
import type { DiffLayout } from '../diff-view.tsx';
import { historyKind, historyPath, type HistoryKind } from '../history-kinds.ts';
import { definePage, type PageContext, type PageView } from '../page.ts';
import { HistoryBody, type Refusal, type Revision, type Shown } from './history-view.tsx';

/** Revisions per page of the list. */
export const REVISIONS_PAGE = 20;

/** The API's refusals of a restore that the page shows beside the list, with their status. */
const SHOWN_REFUSALS: readonly number[] = [403, 404, 409] satisfies Refusal['status'][];

const revisionsPath = (kind: HistoryKind, id: string) =>
  `/${kind.prefix}/${encodeURIComponent(id)}/revisions`;

/** One revision with the record as it was. */
const read = (api: ConsoleApi, base: string, revisionId: string) =>
  api.get<Shown>(`${base}/${encodeURIComponent(revisionId)}`);

/**
 * The two versions the diff compares: `to` (asked for, else the newest) and the one on its left
 * (asked for, else the one before `to`: the next on the listed page, else the next visible one
 * below it; null when `to` is the oldest the reader may see). Each read of a revision is an
 * audited write on the hub, so reads that wait for nothing else run together, and the newest
 * version of a record the API answers directly is read as it is now (the same record).
 */
async function sides(
  api: ConsoleApi,
  kind: HistoryKind,
  id: string,
  list: { revisions: readonly Revision[]; nextCursor?: string },
  newest: Revision | undefined,
  asked: { to?: string | undefined; from?: string | undefined },
): Promise<{ to: Shown | null; from: Shown | null }> {
  const base = revisionsPath(kind, id);
  const toId = asked.to || newest?.id;
  if (!toId) return { to: null, from: null };
  const listed = list.revisions;
  const at = listed.findIndex((revision) => revision.id === toId);
  const live = kind.readable && newest && toId === newest.id && newest.action !== 'deleted';
  const toRead: Promise<Shown> = live
    ? api
        .get<Record<string, unknown>>(`/${kind.prefix}/${encodeURIComponent(id)}`)
        .then((record) => ({ revision: newest, record }))
    : read(api, base, toId);
  const olderId = async (): Promise<string | undefined> => {
    if (asked.from) return asked.from;
    if (at >= 0 && listed[at + 1]) return listed[at + 1]!.id;
    if (at >= 0 && !list.nextCursor) return undefined;
    const version = at >= 0 ? listed[at]!.version : (await toRead).revision.version;
    const below = await api.get<{ revisions: Revision[] }>(`${base}?limit=1&cursor=${version}`);
    return below.revisions[0]?.id;
  };
  const [to, from] = await Promise.all([
    toRead,
    olderId().then((older) => (older ? read(api, base, older) : null)),
  ]);
  return { to, from };
}

async function historyView(page: PageContext, refusal?: Refusal): Promise<PageView> {
  const kind = historyKind(page.param('prefix'));
  if (!kind)
    return {
      title: 'Not found',
      body: <p id="reason">The hub keeps no history of that kind of record.</p>,
      status: 404,
    };
  const id = page.param('id');
  const base = revisionsPath(kind, id);
  const cursor = page.query('cursor');
  const [list, first] = await Promise.all([
    page.api.get<{ revisions: Revision[]; nextCursor?: string }>(
      `${base}?limit=${REVISIONS_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    ),
    cursor ? page.api.get<{ revisions: Revision[] }>(`${base}?limit=1`) : null,
  ]);
  const newest = (first ?? list).revisions[0];
  const asked = { to: page.query('to'), from: page.query('from') };
  const { to, from } = await sides(page.api, kind, id, list, newest, asked);
  const layout: DiffLayout = page.query('view') === 'unified' ? 'unified' : 'split';
  const name = String(to?.record['name'] ?? id);
  return {
    title: `History of ${kind.noun} “${name}”`,
    status: refusal?.status ?? 200,
    body: (
      <HistoryBody
        page={page}
        kind={kind}
        id={id}
        list={list}
        newest={newest ?? null}
        from={from}
        to={to}
        diff={to ? diffRecords(from?.record ?? null, to.record) : null}
        layout={layout}
        refusal={refusal}
      />
    ),
  };
}

export const historyPage = definePage({
  path: '/history/:prefix/:id',
  summary:
    "A record's revisions, a diff of two versions and Restore (prefix: requests, documents, folders, collections, environments, snippets, live-servers or live-pages)",
  admin: false,
  get: (page) => historyView(page),
  async post(page, fields) {
    const kind = historyKind(page.param('prefix'));
    if (!kind) return historyView(page);
    if (fields.intent !== 'restore' || !fields.revision)
      return { ...(await historyView(page)), status: 400 };
    const id = page.param('id');
    try {
      await page.api.send(
        'POST',
        `${revisionsPath(kind, id)}/${encodeURIComponent(fields.revision)}/restore`,
      );
    } catch (error) {
      if (!(error instanceof ApiError) || !SHOWN_REFUSALS.includes(error.status)) throw error;
      const status = error.status as Refusal['status'];
      return historyView(page, { message: error.message, status });
    }
    const version = /^\d+$/.test(fields.version ?? '') ? `?restored=${fields.version}` : '';
    return { redirect: `${historyPath(kind.prefix, id)}${version}` };
  },
});
