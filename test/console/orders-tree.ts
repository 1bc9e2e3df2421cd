/**
 * The collection the member pages are tried on: a folder "Orders" holding the POST request
 * "Create order", and the document "Read me" at the collection's root. Each suite gives the
 * request's URL (and body) and the document's text it looks for.
 */
import type { Extra, Fixtures } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';

export async function ordersTree(
  h: Fixtures<TestHub>,
  parts: { collection?: Extra; request: Extra; document: Extra },
) {
  const collection = await h.collection(undefined, parts.collection);
  const folder = await h.folder(collection.id, { name: 'Orders' });
  const request = await h.request(collection.id, {
    name: 'Create order',
    folderId: folder.id,
    method: 'POST',
    ...parts.request,
  });
  const document = await h.document(collection.id, { name: 'Read me', ...parts.document });
  return { collection, folder, request, document };
}
