/**
 * `/console/collections`: the collections the signed-in user may open (`GET /collections`, which
 * lists only those), each with links to its contents, its trash and its history.
 */
import { definePage } from '../page.ts';
import { HistoryLink, Hidden, When } from '../parts.tsx';

/** A collection as `GET /collections` lists it (the fields the console shows). */
export interface CollectionSummary {
  id: string;
  name: string;
  updatedAt: string;
  deletionLocked: boolean;
}

export const collectionsPage = definePage({
  path: '/collections',
  summary: 'The collections the signed-in user may open',
  admin: false,
  nav: 'Collections',
  async get(page) {
    const { collections } = await page.api.get<{ collections: CollectionSummary[] }>(
      '/collections',
    );
    const link = (id: string, rest = '') =>
      page.href(`/collections/${encodeURIComponent(id)}${rest}`);
    return {
      title: 'Collections',
      body:
        collections.length === 0 ? (
          <p class="card muted" id="none">
            You have no collections yet: ask an administrator for access.
          </p>
        ) : (
          <section class="card" aria-labelledby="list-title">
            <h2 id="list-title">{`${collections.length} ${collections.length === 1 ? 'collection' : 'collections'}`}</h2>
            <div class="scroll" tabindex={0} role="region" aria-labelledby="list-title">
              <table id="collections" data-filter="Filter collections">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Last change</th>
                    <th scope="col">More</th>
                  </tr>
                </thead>
                <tbody>
                  {collections.map((collection) => (
                    <tr>
                      <td>
                        <a href={link(collection.id)}>{collection.name}</a>
                        {collection.deletionLocked ? <span class="muted"> (locked)</span> : null}
                      </td>
                      <td>
                        <When at={collection.updatedAt} />
                      </td>
                      <td class="actions">
                        <a href={link(collection.id, '/trash')}>
                          Trash<Hidden>{` of ${collection.name}`}</Hidden>
                        </a>
                        <HistoryLink
                          page={page}
                          prefix="collections"
                          id={collection.id}
                          name={collection.name}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        ),
    };
  },
});
