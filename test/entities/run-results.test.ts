/** Run results: validation, summaries, who may read and delete them, and the admin routes. */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { assertShape, runResultDetailShape, runResultShape } from './desktop-shapes.ts';

const rows = [
  { status: 'passed' },
  { status: 'failed' },
  { status: 'passed' },
  { status: 'skipped' },
  { status: 'odd' },
  'junk',
];

function payload(collection?: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    harborclientVersion: 1,
    harborclientExport: 'collection-run-results',
    ...(collection ? { collection } : {}),
    results: rows,
    ...extra,
  };
}

describe.each(allDrivers())('run results on %s', (driver) => {
  const h = fixtures(useTestHub(driver));

  it('stores a run with its summary and a default label, and returns the payload verbatim', async () => {
    const col = await h.collection();
    const body = payload({ id: col.id, name: 'Demo API' }, { nested: { deep: [1, { x: null }] } });
    const res = await h.t.request('POST', '/run-results', { body: { payload: body } });
    expect(res.status).toBe(200);
    assertShape(runResultDetailShape, res.body);
    expect(res.body).toMatchObject({
      kind: 'collection-run-results',
      collectionName: 'Demo API',
      requestName: null,
      summary: { passed: 2, failed: 1, skipped: 1 },
      createdByUserId: h.t.adminId,
      payload: body,
    });
    expect(res.body.label).toMatch(/^Demo API — \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const labelled = await h.t.request('POST', '/run-results', {
      body: {
        label: '  Nightly ',
        payload: {
          harborclientExport: 'request-run-results',
          request: { name: 'Health' },
          results: [{ status: 'passed' }],
        },
      },
    });
    expect(labelled.body).toMatchObject({
      label: 'Nightly',
      kind: 'request-run-results',
      requestName: 'Health',
    });
  });

  it('answers a bad export kind, missing or empty results and a non-object payload with 400', async () => {
    const cases = [
      { payload: { results: rows } },
      { payload: { harborclientExport: 'collection', results: rows } },
      { payload: { harborclientExport: 'collection-run-results' } },
      { payload: { harborclientExport: 'collection-run-results', results: [] } },
      { payload: { harborclientExport: 'collection-run-results', results: 'x' } },
      { payload: [1, 2] },
      { label: '', payload: payload() },
      {},
    ];
    for (const body of cases) {
      const res = await h.t.request('POST', '/run-results', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(/^(payload|label)/);
    }
  });

  it('lets users with access to the run collection read it, and nobody else but the creator and admins', async () => {
    const author = await h.user({ collectionAccess: ['*'] });
    const col = await h.collection(author.token);
    const other = await h.collection(author.token);
    const run = (
      await h.t.request('POST', '/run-results', {
        token: author.token,
        body: { payload: payload({ id: col.id, name: 'x' }) },
      })
    ).body;
    const member = await h.user({ collectionAccess: [col.id] });
    const outsider = await h.user({ collectionAccess: [other.id] });
    const nobody = await h.user({});
    expect(
      (await h.t.request('GET', `/run-results/${run.id}`, { token: author.token })).status,
    ).toBe(200);
    expect(
      (await h.t.request('GET', `/run-results/${run.id}`, { token: member.token })).status,
    ).toBe(200);
    expect((await h.t.request('GET', `/run-results/${run.id}`)).status).toBe(200);
    expect(
      (await h.t.request('GET', `/run-results/${run.id}`, { token: outsider.token })).status,
    ).toBe(403);
    const hidden = await h.t.request('GET', `/run-results/${run.id}`, { token: nobody.token });
    expect([hidden.status, hidden.body.error]).toEqual([
      403,
      "Only the run result's creator and people with access to its collection can open it.",
    ]);
    expect((await h.t.request('GET', `/run-results/${crypto.randomUUID()}`)).status).toBe(404);
  });

  it('reads the collection from the desktop export field collection.uuid too', async () => {
    const author = await h.user({ collectionAccess: ['*'] });
    const col = await h.collection(author.token);
    const run = (
      await h.t.request('POST', '/run-results', {
        token: author.token,
        body: { payload: payload({ uuid: col.id, name: 'x' }) },
      })
    ).body;
    const member = await h.user({ collectionAccess: [col.id] });
    expect(
      (await h.t.request('GET', `/run-results/${run.id}`, { token: member.token })).status,
    ).toBe(200);
  });

  it('keeps a run without a collection to its creator and admins', async () => {
    const author = await h.user({});
    const run = (
      await h.t.request('POST', '/run-results', {
        token: author.token,
        body: { payload: payload() },
      })
    ).body;
    const everything = await h.user({ collectionAccess: ['*'] });
    expect(
      (await h.t.request('GET', `/run-results/${run.id}`, { token: author.token })).status,
    ).toBe(200);
    expect(
      (await h.t.request('GET', `/run-results/${run.id}`, { token: everything.token })).status,
    ).toBe(403);
    expect((await h.t.request('GET', `/run-results/${run.id}`)).status).toBe(200);
  });

  it('refuses to attach a run to a hub collection the caller cannot use, but accepts local collection ids', async () => {
    const col = await h.collection();
    const scoped = await h.user({ collectionAccess: [] });
    const refused = await h.t.request('POST', '/run-results', {
      token: scoped.token,
      body: { payload: payload({ id: col.id }) },
    });
    expect(refused.status).toBe(403);
    const local = await h.t.request('POST', '/run-results', {
      token: scoped.token,
      body: { payload: payload({ id: 'local-collection-7' }) },
    });
    expect(local.status).toBe(200);
  });

  it("lists only the caller's own runs, newest first", async () => {
    const author = await h.user({});
    const first = (
      await h.t.request('POST', '/run-results', {
        token: author.token,
        body: { payload: payload() },
      })
    ).body;
    const second = (
      await h.t.request('POST', '/run-results', {
        token: author.token,
        body: { payload: payload() },
      })
    ).body;
    await h.t.request('POST', '/run-results', { body: { payload: payload() } });
    const res = await h.t.request('GET', '/run-results', { token: author.token });
    expect(res.status).toBe(200);
    for (const row of res.body.runResults) assertShape(runResultShape, row);
    const ids = res.body.runResults.map((row: { id: string }) => row.id);
    expect(ids.sort()).toEqual([first.id, second.id].sort());
    expect(res.body.runResults[0].createdAt >= res.body.runResults[1].createdAt).toBe(true);
    expect(res.body.runResults[0]).not.toHaveProperty('payload');
  });

  it('lets only the creator delete a run through the data API, and admins through theirs', async () => {
    const author = await h.user({ collectionAccess: ['*'] });
    const col = await h.collection(author.token);
    const run = (
      await h.t.request('POST', '/run-results', {
        token: author.token,
        body: { payload: payload({ id: col.id }) },
      })
    ).body;
    const member = await h.user({ collectionAccess: ['*'] });
    const refusal = { error: "Only the run result's creator can delete it.", code: 'forbidden' };
    const byMember = await h.t.request('DELETE', `/run-results/${run.id}`, { token: member.token });
    expect([byMember.status, byMember.body]).toEqual([403, refusal]);
    const byAdmin = await h.t.request('DELETE', `/run-results/${run.id}`);
    expect([byAdmin.status, byAdmin.body]).toEqual([403, refusal]);
    const listed = await h.t.request('GET', '/admin/run-results');
    expect(listed.body.runResults.map((row: { id: string }) => row.id)).toContain(run.id);
    expect(
      (await h.t.request('GET', `/admin/run-results/${run.id}`)).body.payload.collection.id,
    ).toBe(col.id);
    expect((await h.t.request('DELETE', `/admin/run-results/${run.id}`)).status).toBe(204);
    expect((await h.t.request('DELETE', `/admin/run-results/${run.id}`)).status).toBe(404);
    const own = (
      await h.t.request('POST', '/run-results', {
        token: author.token,
        body: { payload: payload() },
      })
    ).body;
    expect(
      (await h.t.request('DELETE', `/run-results/${own.id}`, { token: author.token })).status,
    ).toBe(204);
    expect(
      (await h.t.request('GET', `/run-results/${own.id}`, { token: author.token })).status,
    ).toBe(404);
  });
});
