/**
 * `/console/collections/:id`: one collection's folders, saved requests and documents as a tree,
 * read-only — a request's method and URL, a document's text — each with a link to its history.
 * The three lists are the API's (`GET /collections/:id/folders|requests|documents`), so a member
 * without access to the collection gets the API's 403.
 */
import type { FC } from 'hono/jsx';
import { definePage, type PageContext } from '../page.ts';
import { Hidden, HistoryLink, When } from '../parts.tsx';
import type { CollectionSummary } from './collections.tsx';

interface Folder {
  id: string;
  parentFolderId: string | null;
  name: string;
}

interface Item {
  id: string;
  folderId: string | null;
  name: string;
  sortOrder: number;
}

interface SavedRequest extends Item {
  protocol: string;
  method: string;
  url: string;
}

interface Document extends Item {
  content: string;
}

interface Contents {
  folders: Folder[];
  requests: SavedRequest[];
  documents: Document[];
}

/** What sits directly in `parent` (null: the collection's root), folders first, in list order. */
function childrenOf(contents: Contents, parent: string | null) {
  const items = [
    ...contents.requests.map((request) => ({ request, document: undefined })),
    ...contents.documents.map((document) => ({ request: undefined, document })),
  ]
    .filter(({ request, document }) => (request ?? document)!.folderId === parent)
    .sort((a, b) => (a.request ?? a.document)!.sortOrder - (b.request ?? b.document)!.sortOrder);
  return {
    folders: contents.folders.filter((folder) => folder.parentFolderId === parent),
    items,
  };
}

const RequestEntry: FC<{ page: PageContext; request: SavedRequest }> = ({ page, request }) => (
  <li class="request">
    <span class="method">{request.protocol === 'http' ? request.method : request.protocol}</span>{' '}
    {request.name} <code class="url">{request.url}</code>{' '}
    <HistoryLink page={page} prefix="requests" id={request.id} name={request.name} />
  </li>
);

const DocumentEntry: FC<{ page: PageContext; document: Document }> = ({ page, document }) => (
  <li class="document">
    <span class="kind">Document</span> {document.name}{' '}
    <HistoryLink page={page} prefix="documents" id={document.id} name={document.name} />
    <details>
      <summary>
        Text<Hidden>{` of ${document.name}`}</Hidden>
      </summary>
      <pre tabindex={0} role="region" aria-label={`Text of ${document.name}`}>
        {document.content}
      </pre>
    </details>
  </li>
);

const Tree: FC<{ page: PageContext; contents: Contents; parent: string | null }> = ({
  page,
  contents,
  parent,
}) => {
  const { folders, items } = childrenOf(contents, parent);
  if (folders.length === 0 && items.length === 0) return null;
  return (
    <ul class="tree">
      {folders.map((folder) => (
        <li class="folder">
          <span class="kind">Folder</span> <b>{folder.name}</b>{' '}
          <HistoryLink page={page} prefix="folders" id={folder.id} name={folder.name} />
          <Tree page={page} contents={contents} parent={folder.id} />
        </li>
      ))}
      {items.map(({ request, document }) =>
        request ? (
          <RequestEntry page={page} request={request} />
        ) : (
          <DocumentEntry page={page} document={document!} />
        ),
      )}
    </ul>
  );
};

/** Folders whose parent is not in the list (never expected) are shown at the root. */
function rooted(contents: Contents): Contents {
  const ids = new Set(contents.folders.map((folder) => folder.id));
  return {
    ...contents,
    folders: contents.folders.map((folder) =>
      folder.parentFolderId !== null && !ids.has(folder.parentFolderId)
        ? { ...folder, parentFolderId: null }
        : folder,
    ),
  };
}

export const collectionPage = definePage({
  path: '/collections/:id',
  summary: "A collection's folders, saved requests and documents, read-only",
  admin: false,
  async get(page) {
    const id = page.param('id');
    const under = `/collections/${encodeURIComponent(id)}`;
    // Access first: the folders' answer is the API's 403 or 404 for this collection.
    const { folders } = await page.api.get<{ folders: Folder[] }>(`${under}/folders`);
    const [{ requests }, { documents }, { collections }] = await Promise.all([
      page.api.get<{ requests: SavedRequest[] }>(`${under}/requests`),
      page.api.get<{ documents: Document[] }>(`${under}/documents`),
      page.api.get<{ collections: CollectionSummary[] }>('/collections'),
    ]);
    const collection = collections.find((candidate) => candidate.id === id);
    const name = collection?.name ?? id;
    const contents = rooted({ folders, requests, documents });
    const empty = folders.length + requests.length + documents.length === 0;
    return {
      title: `Collection “${name}”`,
      body: (
        <>
          <section class="card" aria-labelledby="about-title">
            <h2 id="about-title">About</h2>
            <p id="counts">
              {`${folders.length} folders, ${requests.length} saved requests, ${documents.length} documents.`}
              {collection ? (
                <>
                  {' '}
                  Last changed <When at={collection.updatedAt} />.
                </>
              ) : null}
            </p>
            <p class="links">
              <a href={page.href(`${under}/trash`)}>Trash</a>
              <HistoryLink page={page} prefix="collections" id={id} name={name} />
            </p>
          </section>
          <section class="card" aria-labelledby="tree-title">
            <h2 id="tree-title">Contents</h2>
            {empty ? (
              <p class="muted">This collection is empty.</p>
            ) : (
              <Tree page={page} contents={contents} parent={null} />
            )}
          </section>
        </>
      ),
    };
  },
});
