/**
 * The mixed workload: readers poll one collection's request list while writers edit requests of
 * that collection, at once (24 clients `GET /collections/:id/requests` of a collection of 200
 * requests, 8 clients `PUT /requests/:id` on its requests in turn). Reports reads/s and writes/s.
 * Used by run.mjs after the shared bench on every driver.
 */
import autocannon from 'autocannon';

const READERS = 24;
const WRITERS = 8;
const REQUESTS = 200;

async function call(url, secret, method, path, body) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Seeds the collection and its requests. */
async function seed(url, secret) {
  const collection = await call(url, secret, 'POST', '/collections', {
    name: `mixed-${Date.now()}`,
  });
  const ids = [];
  for (let i = 0; i < REQUESTS; i++) {
    const saved = await call(url, secret, 'POST', `/collections/${collection.id}/requests`, {
      name: `request ${i}`,
      method: 'GET',
      url: `https://example.test/${i}`,
    });
    ids.push(saved.id);
  }
  return { collectionId: collection.id, ids };
}

const run = (options) =>
  new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });

/** Runs readers and writers together for `duration` seconds (after `warmup`); per-second rates. */
export async function runMixed(url, secret, { duration, warmup }) {
  const { collectionId, ids } = await seed(url, secret);
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  let edit = 0;
  const both = (seconds) =>
    Promise.all([
      run({
        url,
        connections: READERS,
        duration: seconds,
        headers,
        requests: [{ method: 'GET', path: `/collections/${collectionId}/requests` }],
      }),
      run({
        url,
        connections: WRITERS,
        duration: seconds,
        headers,
        requests: [
          {
            method: 'PUT',
            setupRequest(request) {
              const n = edit++;
              return {
                ...request,
                path: `/requests/${ids[n % ids.length]}`,
                body: JSON.stringify({ collectionId, name: `edit ${n}` }),
              };
            },
          },
        ],
      }),
    ]);
  if (warmup > 0) await both(warmup);
  const [reads, writes] = await both(duration);
  const rate = (result) => Math.round(result['2xx'] / duration);
  return {
    scenario: 'mixed',
    reads_per_s: rate(reads),
    writes_per_s: rate(writes),
    read_p50_ms: reads.latency.p50,
    write_p50_ms: writes.latency.p50,
    non2xx: reads.non2xx + writes.non2xx,
  };
}
