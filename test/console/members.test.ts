/**
 * The member pages of the console over HTTP (no browser), on SQLite and PostgreSQL: collections
 * and a collection's tree (a request's method and URL, a document's text escaped, links to every
 * record's history), a record's history with who and when, its diff side by side and unified,
 * Restore through the API's route (the API then answers the old version), a refused restore with
 * the API's message and status, the trash with undelete, notices with Mark read, the notification
 * setting, and what a member may not see: another collection's tree, history and trash (the
 * API's 403), and revisions written in a collection they cannot use.
 */
import { describe, expect, it } from 'vitest';
import { consoleDrivers } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { ordersTree } from './orders-tree.ts';
import { useTestHub } from '../helpers/hub.ts';
import { consoleClient, csrfOf, pluginsWithProbe } from './client.ts';

/** The text of the element with this id in a page (tags dropped), or null. */
const textOf = (html: string, id: string) => {
  const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</(p|h[1-3]|dd|td)>`).exec(html);
  return match
    ? match[1]!
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim()
    : null;
};

/** The versions the history page's list of revisions shows, in its order. */
const listedVersions = (html: string) =>
  [...html.slice(html.indexOf('id="revisions"')).matchAll(/<tr><td>(\d+)<\/td>/g)].map((m) =>
    Number(m[1]),
  );

/** The history page's restore form: the revision to restore and the version the record is at. */
const restoreVersion = (csrf: string, revision: string, version: string) => ({
  csrf,
  intent: 'restore',
  revision,
  version,
});

/** The trash page's restore form for one deleted record. */
const restoreFromTrash = (csrf: string, kind: string, id: string) => ({
  csrf,
  intent: 'restore',
  kind,
  id,
});

describe.each(consoleDrivers())('console member pages on %s', (kind) => {
  const t = useTestHub(kind, async () => ({ plugins: await pluginsWithProbe() }));
  const h = fixtures(t);

  /** A console session of `token`, with the form token of its first page. */
  async function session(token: string) {
    const browser = consoleClient(t);
    expect((await browser.signIn(token)).status).toBe(303);
    const csrf = csrfOf((await browser.get('/console')).html)!;
    return { browser, csrf };
  }

  /** A collection with a folder, a request in it and a document whose text is markup. */
  async function collectionWithContents() {
    const { collection, folder, request, document } = await ordersTree(h, {
      request: { url: 'https://shop.test/orders?x=<1>' },
      document: { content: '# Notes\n<script>alert("x")</script>' },
    });
    const member = await h.user({ collectionAccess: [collection.id] });
    return { collection, folder, request, document, member };
  }

  it("lists a member's collections and shows one as a tree, read-only, with every record's history", async () => {
    const { collection, folder, request, document, member } = await collectionWithContents();
    const { browser } = await session(member.token);
    const nav = (await browser.get('/console')).html;
    for (const label of ['Home', 'Collections', 'Notices', 'Profile'])
      expect(nav).toContain(`>${label}</a>`);
    expect(nav).not.toContain('Probe');

    const list = await browser.get('/console/collections');
    expect(list.status).toBe(200);
    expect(list.html).toContain(
      `<a href="/console/collections/${collection.id}">${collection.name}</a>`,
    );
    expect(list.html).toContain(`href="/console/history/collections/${collection.id}"`);

    const tree = await browser.get(`/console/collections/${collection.id}`);
    expect(tree.status).toBe(200);
    expect(tree.html).toContain(`<h1>Collection “${collection.name}”</h1>`);
    expect(tree.html).toMatch(
      /<span class="method">POST<\/span> Create order <code class="url">https:\/\/shop.test\/orders\?x=&lt;1&gt;<\/code>/,
    );
    expect(tree.html).toContain(
      '<pre tabindex="0" role="region" aria-label="Text of Read me"># Notes\n&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</pre>',
    );
    expect(tree.html).not.toContain('<script>alert');
    for (const [prefix, id] of [
      ['folders', folder.id],
      ['requests', request.id],
      ['documents', document.id],
      ['collections', collection.id],
    ])
      expect(tree.html).toContain(`href="/console/history/${prefix}/${id}"`);
    // The request sits in its folder's own list.
    expect(tree.html).toMatch(
      /<b>Orders<\/b>[^]*?<ul class="tree"><li class="request">[^<]*<span class="method">POST<\/span> Create order/,
    );
  });

  it('shows a request edited by two users, diffs two versions both ways, and restores the old one through the API', async () => {
    const { collection, request, member } = await collectionWithContents();
    const other = await h.user({ collectionAccess: [collection.id] });
    const edit = (token: string, url: string) =>
      t.request('PUT', `/requests/${request.id}`, {
        token,
        body: { collectionId: collection.id, url, body: `{"url": "${url}"}` },
      });
    expect((await edit(member.token, 'https://shop.test/v2')).status).toBe(200);
    expect((await edit(other.token, 'https://shop.test/v3')).status).toBe(200);
    const { browser, csrf } = await session(member.token);
    const path = `/console/history/requests/${request.id}`;

    const page = await browser.get(path);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>History of saved request “Create order”</h1>');
    const rows = /<tbody>([\s\S]*?)<\/tbody>/.exec(
      page.html.slice(page.html.indexOf('id="revisions"')),
    )![1]!;
    expect(rows.match(/<tr>/g)).toHaveLength(3);
    expect(rows).toMatch(/<td>3<\/td><td>updated<\/td><td>[^<]+<\/td>/);
    // Newest against the one before it, side by side: the URL's changed word on each side.
    expect(page.html).toContain('<table class="diff split">');
    expect(page.html).toMatch(
      /<td class="text del"><span class="sr">Removed: <\/span>https:\/\/shop.test\/<del>v2<\/del><\/td>/,
    );
    expect(page.html).toMatch(
      /<td class="text ins"><span class="sr">Added: <\/span>https:\/\/shop.test\/<ins>v3<\/ins><\/td>/,
    );
    expect(textOf(page.html, 'unchanged')).toContain('method');
    // Only the old side was an old revision: the newest is the record as it is, not audited.
    const reads = await t.request(
      'GET',
      `/admin/audit?action=revision.read&targetId=${request.id}`,
    );
    expect(reads.body.events.map((event: any) => [event.actor.id, event.details.version])).toEqual([
      [member.id, 2],
    ]);

    const revisions = (await t.request('GET', `/requests/${request.id}/revisions`)).body.revisions;
    const [v3, , v1] = revisions;
    const unified = await browser.get(`${path}?from=${v1.id}&to=${v3.id}&view=unified`);
    expect(unified.html).toContain('<table class="diff unified">');
    expect(textOf(unified.html, 'diff-title')).toMatch(
      /^From version 1, created by .+ to version 3, updated by .+$/,
    );
    expect(unified.html).toMatch(
      /<td class="text del"><span class="sr">Removed: <\/span>https:\/\/shop.test\/<del>orders\?x=&lt;1&gt;<\/del><\/td>/,
    );

    const restored = await browser.post(path, restoreVersion(csrf, v1.id, '1'));
    expect(restored.status).toBe(303);
    expect(restored.location).toBe(`${path}?restored=1`);
    const after = await browser.get(restored.location!);
    expect(after.html).toContain('Restored version 1: it is now version 4.');
    const now = await t.request('GET', `/requests/${request.id}`, { token: member.token });
    expect(now.body.url).toBe('https://shop.test/orders?x=<1>');
    const [newest] = (await t.request('GET', `/requests/${request.id}/revisions?limit=1`)).body
      .revisions;
    expect(newest).toMatchObject({ version: 4, action: 'restored', actor: { id: member.id } });
  });

  it('pages the revisions as the API does and diffs a version with the one before it on another page', async () => {
    const { collection, request, member } = await collectionWithContents();
    for (let i = 2; i <= 23; i++)
      await t.request('PUT', `/requests/${request.id}`, {
        body: { collectionId: collection.id, url: `https://shop.test/${i}` },
      });
    const { browser } = await session(member.token);
    const path = `/console/history/requests/${request.id}`;
    const first = await browser.get(path);
    const older = /href="([^"]+cursor=\d+)">Older revisions<\/a>/
      .exec(first.html)![1]!
      .replaceAll('&amp;', '&');
    const second = await browser.get(older);
    expect(second.status).toBe(200);
    expect(listedVersions(second.html)).toEqual([3, 2, 1]);
    expect(second.html).toContain('>Newest revisions</a>');
    // The last listed row compares with the version on the next page.
    const v4 = (await t.request('GET', `/requests/${request.id}/revisions?cursor=5&limit=1`)).body
      .revisions[0];
    const compared = await browser.get(`${path}?to=${v4.id}`);
    expect(textOf(compared.html, 'diff-title')).toMatch(
      /^From version 3, updated by .+ to version 4/,
    );
  });

  it('shows a refused restore with the API’s message and status beside the history', async () => {
    const { collection, request } = await collectionWithContents();
    const { browser, csrf } = await session(t.adminToken);
    const [v1] = (await t.request('GET', `/requests/${request.id}/revisions`)).body.revisions;
    expect((await t.request('DELETE', `/requests/${request.id}`)).status).toBe(204);
    expect((await t.request('DELETE', `/collections/${collection.id}`)).status).toBe(204);
    const path = `/console/history/requests/${request.id}`;
    const page = await browser.get(path);
    expect(textOf(page.html, 'standing')).toMatch(
      /^Deleted .+ Restore a version to bring it back\.$/,
    );
    const refused = await browser.post(path, restoreVersion(csrf, v1.id, '1'));
    expect(refused.status).toBe(409);
    expect(textOf(refused.html, 'refusal')).toBe(
      'The collection of this saved request no longer exists; it cannot come back.',
    );
    expect(refused.html).toContain('id="revisions"');
  });

  it('lists the trash, restores from it as the API allows, and says when the API refuses', async () => {
    const { collection, document, member } = await collectionWithContents();
    const mine = await h.request(collection.id, { name: 'Mine' }, member.token);
    expect(
      (await t.request('DELETE', `/requests/${mine.id}`, { token: member.token })).status,
    ).toBe(204);
    expect((await t.request('DELETE', `/documents/${document.id}`)).status).toBe(204);
    const { browser, csrf } = await session(member.token);
    const path = `/console/collections/${collection.id}/trash`;
    const trash = await browser.get(path);
    expect(trash.status).toBe(200);
    expect(trash.html).toMatch(/<td>Mine<\/td><td>saved request<\/td>/);
    expect(trash.html).toMatch(/<td>Read me<\/td><td>document<\/td>/);

    // An admin deleted the document: the API refuses the member, and the page says so.
    const refused = await browser.post(path, restoreFromTrash(csrf, 'document', document.id));
    expect(refused.status).toBe(403);
    expect(textOf(refused.html, 'refusal')).toBe(
      'An admin deleted this document; only an admin can restore it.',
    );

    const back = await browser.post(path, restoreFromTrash(csrf, 'request', mine.id));
    expect(back.status).toBe(303);
    expect(back.location).toBe(`${path}?restored=${encodeURIComponent(`requests/${mine.id}`)}`);
    const after = await browser.get(back.location!);
    expect(after.html).toContain('Restored the saved request: it is back in the collection.');
    expect(after.html).not.toContain('<td>Mine</td>');
    expect((await t.request('GET', `/requests/${mine.id}`, { token: member.token })).status).toBe(
      200,
    );
    const again = await browser.post(path, restoreFromTrash(csrf, 'request', mine.id));
    expect(again.status).toBe(409);
    expect(textOf(again.html, 'refusal')).toContain('is not in the trash any more');
  });

  it("gives a member the API's 403 for another collection's tree, trash and history, and hides revisions written elsewhere", async () => {
    const { collection: theirs, request: other } = await collectionWithContents();
    const [c1, c2] = [await h.collection(), await h.collection()];
    const mover = await h.user({ collectionAccess: [c1.id, c2.id] });
    const reader = await h.user({ collectionAccess: [c1.id] });
    const moved = await h.request(c2.id, { url: 'https://c2.test/SECRET' }, mover.token);
    const put = (body: object) =>
      t.request('PUT', `/requests/${moved.id}`, { token: mover.token, body });
    // Scrubbed in C2, then moved to C1 and edited there: only the last two are C1's.
    expect((await put({ collectionId: c2.id, url: 'https://c2.test/' })).status).toBe(200);
    expect((await put({ collectionId: c1.id })).status).toBe(200);
    expect((await put({ collectionId: c1.id, url: 'https://c1.test/' })).status).toBe(200);
    const { browser } = await session(reader.token);

    for (const path of [
      `/console/collections/${theirs.id}`,
      `/console/collections/${theirs.id}/trash`,
      `/console/history/requests/${other.id}`,
      `/console/history/collections/${theirs.id}`,
    ]) {
      const page = await browser.get(path);
      expect(page.status, path).toBe(403);
      expect(textOf(page.html, 'reason'), path).toMatch(/collectionAccess/);
    }

    const history = await browser.get(`/console/history/requests/${moved.id}`);
    expect(history.status).toBe(200);
    expect(listedVersions(history.html)).toEqual([4, 3]);
    expect(history.html).not.toContain('SECRET');
    const v3 = /<option value="([^"]+)">Version 3 /.exec(history.html)![1]!;
    const moveOnly = await browser.get(`/console/history/requests/${moved.id}?to=${v3}`);
    expect(textOf(moveOnly.html, 'diff-title')).toMatch(
      /^From nothing \(no earlier version you may see\) to version 3, moved by /,
    );
    // The move's revision has no visible one before it; the one asked for is the API's 403.
    const v1 = (
      await t.request('GET', `/requests/${moved.id}/revisions?cursor=2`, { token: mover.token })
    ).body.revisions[0];
    const asked = await browser.get(`/console/history/requests/${moved.id}?from=${v1.id}`);
    expect(asked.status).toBe(403);
    expect(textOf(asked.html, 'reason')).toBe(
      'This revision was written in a collection that is not in your collectionAccess list.',
    );
    expect(asked.html).not.toContain('SECRET');
  });

  it('answers an unknown kind of history with a 404 page, and a restore without its form token with 403', async () => {
    const { request, member } = await collectionWithContents();
    const { browser } = await session(member.token);
    const unknown = await browser.get(`/console/history/widgets/${request.id}`);
    expect(unknown.status).toBe(404);
    const [v1] = (await t.request('GET', `/requests/${request.id}/revisions`)).body.revisions;
    const forged = await browser.post(`/console/history/requests/${request.id}`, {
      intent: 'restore',
      revision: v1.id,
    });
    expect(forged.status).toBe(403);
  });

  it('shows notices, marks one read and then all, and saves the notification setting', async () => {
    const { request, member } = await collectionWithContents();
    const thread = await h.create(
      `/requests/${request.id}/discussions`,
      { body: 'Which URL?' },
      member.token,
    );
    for (const body of ['The v2 one', 'No, v3 <b>now</b>'])
      await h.create(`/discussion-comments/${thread.id}/replies`, { body });
    const { browser, csrf } = await session(member.token);
    expect(textOf((await browser.get('/console')).html, 'unread')).toBe('2 unread notices');
    const page = await browser.get('/console/notices');
    expect(page.status).toBe(200);
    expect(textOf(page.html, 'feed-title')).toBe('2 unread');
    expect(page.html).toContain('<blockquote>No, v3 &lt;b&gt;now&lt;/b&gt;</blockquote>');
    const id = /name="id" value="([^"]+)"/.exec(page.html)![1]!;
    const read = await browser.post('/console/notices', { csrf, intent: 'read', id });
    expect(read.status).toBe(303);
    expect(textOf((await browser.get('/console/notices')).html, 'feed-title')).toBe('1 unread');
    expect(
      (await browser.post('/console/notices', { csrf, intent: 'read', id: 'nope' })).status,
    ).toBe(404);
    expect((await browser.post('/console/notices', { csrf, intent: 'read-all' })).status).toBe(303);
    expect(textOf((await browser.get('/console/notices')).html, 'feed-title')).toBe(
      'Nothing unread',
    );

    const saved = await browser.post('/console/profile', {
      csrf,
      intent: 'notifications',
      level: 'mentions',
    });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe('/console/profile?saved=notifications');
    const settings = await t.request('GET', '/me/notification-settings', { token: member.token });
    expect(settings.body.level).toBe('mentions');
    const refused = await browser.post('/console/profile', {
      csrf,
      intent: 'notifications',
      level: 'loud',
    });
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/<p class="error" id="f-level-error">level: [^<]+<\/p>/);
  });
});
