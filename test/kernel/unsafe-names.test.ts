/**
 * Names people read in terminals and UIs refuse C0/C1 controls and bidirectional controls with a
 * 400 naming the field, on every route that takes one: accounts, tokens, invitations and their
 * redeemed token, and workspace entities (names, sidebar markers, run labels).
 */
import { describe, expect, it } from 'vitest';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';

/** One of each kind: C0, DEL, C1 (a one-byte CSI), the bidi override, isolate and marks. */
const UNSAFE = ['\u001b[2J', '\u007f', '\u009b2J', '\u202e', '\u2066', '\u200f', '\u061c'];
const REFUSED = 'must not contain control or bidirectional-override characters';

describe('names with control or bidirectional-override characters', () => {
  const t = useTestHub(EMBEDDED_DRIVER);
  const h = fixtures(t);

  /** Sends `body(bad)` for every unsafe character and expects 400 with exactly `error`. */
  async function expectRefused(
    method: string,
    path: string,
    body: (bad: string) => Record<string, unknown>,
    error: string,
  ) {
    for (const char of UNSAFE) {
      const res = await t.request(method, path, { body: body(`a${char}b`) });
      expect([res.status, res.body?.error], `${method} ${path} ${JSON.stringify(char)}`).toEqual([
        400,
        error,
      ]);
    }
  }

  it('refuses them in user names on create, invitation and rename', async () => {
    const message = `name: User name ${REFUSED}.`;
    await expectRefused('POST', '/admin/users', (name) => ({ name }), message);
    await expectRefused('POST', '/admin/invited-users', (name) => ({ name }), message);
    const user = await h.user({});
    await expectRefused('PUT', `/admin/users/${user.id}`, (name) => ({ name }), message);
    const users = (await t.request('GET', '/admin/users')).body.users as { name: string }[];
    expect(users.filter((u) => UNSAFE.some((char) => u.name.includes(char)))).toEqual([]);
  });

  it('refuses them in token names, at issue and at redeem', async () => {
    const user = await h.user({});
    await expectRefused(
      'POST',
      `/admin/users/${user.id}/tokens`,
      (name) => ({ name }),
      `name: Token name ${REFUSED}.`,
    );
    const invited = await t.request('POST', '/admin/invited-users', {
      body: { name: uniqueName('invitee') },
    });
    await expectRefused(
      'POST',
      '/auth/invitations/redeem',
      (tokenName) => ({ secret: invited.body.secret, tokenName }),
      `tokenName: ${REFUSED}`,
    );
    // The invitation is still unspent: a plain name redeems it.
    const ok = await t.request('POST', '/auth/invitations/redeem', {
      token: null,
      body: { secret: invited.body.secret, tokenName: 'laptop' },
    });
    expect(ok.status).toBe(201);
  });

  it('refuses them in the names of every workspace entity, in markers and in run labels', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const name = (bad: string) => ({ name: bad });
    for (const path of [
      '/collections',
      '/environments',
      '/snippets',
      '/live-servers',
      '/live-pages',
    ])
      await expectRefused('POST', path, name, `name: ${REFUSED}`);
    for (const kind of ['folders', 'requests', 'documents'])
      await expectRefused('POST', `/collections/${col.id}/${kind}`, name, `name: ${REFUSED}`);
    await expectRefused('PUT', `/collections/${col.id}`, name, `name: ${REFUSED}`);
    await expectRefused('PATCH', `/folders/${folder.id}`, name, `name: ${REFUSED}`);
    await expectRefused(
      'PUT',
      `/collections/${col.id}`,
      (marker) => ({ marker }),
      `marker: ${REFUSED}`,
    );
    await expectRefused(
      'POST',
      '/run-results',
      (label) => ({
        label,
        payload: { harborclientExport: 'request-run-results', results: [{ status: 'passed' }] },
      }),
      `label: ${REFUSED}`,
    );
    // Other scripts, emoji and joiners inside them stay welcome.
    const fine = await t.request('POST', '/collections', {
      body: { name: 'Ünïcødé עברית 👩‍💻 日本語' },
    });
    expect(fine.status).toBe(200);
  });
});
