/**
 * Fixtures for the discussions suites: the shared hub and entity fixtures, plus run results,
 * comments and replies over HTTP. Enrolled devices are written straight into the device table,
 * because the device routes belong to another plugin.
 */
import { insertDeviceKey } from '../helpers/rows.ts';
import type { DriverKind } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useTestHub, type TestHubOptions, type TestResponse } from '../helpers/hub.ts';

export type DiscussionHub = ReturnType<typeof useDiscussionHub>;

/** Starts one hub on `kind` for the enclosing describe block; read it inside tests only. */
export function useDiscussionHub(kind: DriverKind, options: TestHubOptions = {}) {
  const f = fixtures(useTestHub(kind, options));
  const { t } = f;
  const tok = (token?: string) => (token ? { token } : {});
  return {
    ...f,
    runResult: (token?: string, collectionId?: string): Promise<any> =>
      f.create(
        '/run-results',
        {
          payload: {
            harborclientExport: 'collection-run-results',
            results: [{ status: 'passed' }],
            ...(collectionId ? { collection: { id: collectionId, name: 'c' } } : {}),
          },
        },
        token,
      ),
    /** POST a new comment on `<target>/discussions` (e.g. `/collections/<id>`); returns the raw response. */
    post: (target: string, body: unknown, token?: string): Promise<TestResponse> =>
      t.request('POST', `${target}/discussions`, { body, ...tok(token) }),
    /** Like `post` but expects 200 and returns the record. */
    comment: (target: string, text = 'hello', token?: string): Promise<any> =>
      f.create(`${target}/discussions`, { body: text }, token),
    reply: (parentId: string, text = 'a reply', token?: string): Promise<any> =>
      f.create(`/discussion-comments/${parentId}/replies`, { body: text }, token),
    list: (target: string, query = '', token?: string): Promise<TestResponse> =>
      t.request('GET', `${target}/discussions${query}`, tok(token)),
    /** Enrolls a device for `userId` and returns its device id. */
    enrollDevice: (userId: string, revoked = false): Promise<string> =>
      insertDeviceKey(t.store(), userId, { revoked }),
  };
}
