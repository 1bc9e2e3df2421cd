/**
 * Each kind's answer against its record in /openapi.json. The answer and the document both come
 * from the kind's one record schema (plugins/entities/records.ts), so they list the same fields in
 * the same order, and the create defaults the document states are the ones a new record gets.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { httpDrivers } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useTestHub } from '../helpers/hub.ts';

describe.each(httpDrivers())('entity records and their documented schemas on %s', (driver) => {
  const h = fixtures(useTestHub(driver));
  let schemas: Record<string, { properties: Record<string, any>; required?: string[] }>;

  beforeAll(async () => {
    const doc = await h.t.request('GET', '/openapi.json', { token: null });
    schemas = doc.body.components.schemas;
  });

  /** One record of each kind, made from a name alone (a run result from a minimal export). */
  async function oneOfEach(): Promise<Record<string, Record<string, unknown>>> {
    const collection = await h.collection();
    const run = await h.t.request('POST', '/run-results', {
      body: {
        payload: {
          harborclientVersion: 1,
          harborclientExport: 'request-run-results',
          results: [{ status: 'passed' }],
        },
      },
    });
    expect(run.status, run.text).toBe(200);
    return {
      Collection: collection,
      Environment: await h.create('/environments', { name: 'env' }),
      Snippet: await h.create('/snippets', { name: 'snippet' }),
      LiveServer: await h.create('/live-servers', { name: 'server' }),
      LivePage: await h.create('/live-pages', { name: 'page' }),
      Folder: await h.folder(collection.id),
      SavedRequest: await h.request(collection.id),
      Document: await h.document(collection.id),
      RunResultDetail: run.body,
    };
  }

  const documentedDefaults = (id: string) =>
    Object.fromEntries(
      Object.entries(schemas[id]!.properties)
        .filter(([, property]) => 'default' in property)
        .map(([key, property]) => [key, property.default]),
    );

  it('answers with the fields of the documented record, in its order, and every required one', async () => {
    for (const [id, record] of Object.entries(await oneOfEach())) {
      const documented = Object.keys(schemas[id]!.properties);
      expect(Object.keys(record), id).toEqual(documented.filter((key) => key in record));
      expect(Object.keys(record), id).toEqual(expect.arrayContaining(schemas[id]!.required ?? []));
    }
  });

  it('documents the create defaults of a saved request, and a new record gets each of them', async () => {
    expect(documentedDefaults('SavedRequest')).toEqual({
      protocol: 'http',
      method: 'GET',
      url: '',
      headers: [],
      params: [],
      body: '',
      bodyType: 'none',
      preRequestScript: '',
      postRequestScript: '',
      comment: '',
    });
    expect(Object.keys(documentedDefaults('Collection'))).toEqual([
      'variables',
      'headers',
      'preRequestScript',
      'postRequestScript',
    ]);
    const records = await oneOfEach();
    for (const id of ['Collection', 'Environment', 'Snippet', 'SavedRequest', 'Document']) {
      for (const [key, value] of Object.entries(documentedDefaults(id))) {
        expect(records[id]![key], `${id}.${key}`).toEqual(value);
      }
    }
  });
});
