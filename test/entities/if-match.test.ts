/**
 * The `If-Match` header's syntax on every route that reads it: a header that is not `*` or a list
 * of entity tags is the client's mistake (400 naming the header, nothing written), while a
 * well-formed tag that names another version is a conflict (412). Lists match any version they
 * name. Every answer is also checked against /openapi.json by the harness.
 */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useTestHub } from '../helpers/hub.ts';

const MALFORMED =
  'If-Match: malformed; send * or the ETag a read or write answered, e.g. If-Match: "3".';

describe.each(allDrivers())('If-Match syntax on %s', (driver) => {
  const t = useTestHub(driver);
  const h = fixtures(t);

  /** Every write that reads If-Match, each on a record of its own at version 1. */
  const writes = async () => {
    const col = await h.collection();
    const record = async (kind: 'request' | 'document' | 'folder' | 'environment') => {
      if (kind === 'request') return `/requests/${(await h.request(col.id)).id}`;
      if (kind === 'folder') return `/folders/${(await h.folder(col.id)).id}`;
      if (kind === 'environment')
        return `/environments/${(await h.create('/environments', { name: 'env' })).id}`;
      const document = await h.create(`/collections/${col.id}/documents`, { name: 'doc' });
      return `/documents/${document.id}`;
    };
    return [
      ['PUT', await record('request'), { collectionId: col.id, name: 'renamed' }],
      ['DELETE', await record('request'), undefined],
      ['PUT', await record('document'), { collectionId: col.id, name: 'renamed' }],
      ['DELETE', await record('document'), undefined],
      ['PATCH', await record('folder'), { name: 'renamed' }],
      ['DELETE', await record('folder'), undefined],
      ['PUT', await record('environment'), { name: 'renamed' }],
      ['DELETE', await record('environment'), undefined],
    ] as const;
  };

  it.each(['garbage', '"1', '1"', 'W/1', '"1" "2"', ',', '"a b"', '**'])(
    'answers 400 naming If-Match to %j, and writes nothing',
    async (header) => {
      for (const [method, path, body] of await writes()) {
        const res = await t.request(method, path, {
          headers: { 'If-Match': header },
          ...(body ? { body } : {}),
        });
        expect([method, path, res.status, res.body]).toEqual([
          method,
          path,
          400,
          { error: MALFORMED, code: 'validation_failed' },
        ]);
        const readable = path.startsWith('/requests') || path.startsWith('/documents');
        const get = readable ? await t.request('GET', path) : undefined;
        if (get) expect([path, get.status, get.headers.get('etag')]).toEqual([path, 200, '"1"']);
      }
    },
  );

  it('answers 412 to a well-formed entity tag that is not the current version', async () => {
    for (const header of ['"abc"', '"2"', '"1000000000"', '""']) {
      for (const [method, path, body] of await writes()) {
        const res = await t.request(method, path, {
          headers: { 'If-Match': header },
          ...(body ? { body } : {}),
        });
        expect([header, method, path, res.status, res.body.code]).toEqual([
          header,
          method,
          path,
          412,
          'precondition_failed',
        ]);
      }
    }
  });

  it('accepts *, a list naming the current version, a weak tag and a bare version', async () => {
    for (const header of ['*', '"7", "1"', '"x",, "1"', 'W/"1"', '1']) {
      for (const [method, path, body] of await writes()) {
        const res = await t.request(method, path, {
          headers: { 'If-Match': header },
          ...(body ? { body } : {}),
        });
        expect([header, method, path, res.status]).toEqual([
          header,
          method,
          path,
          method === 'DELETE' ? 204 : 200,
        ]);
      }
    }
  });
});
