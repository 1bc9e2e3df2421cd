/**
 * The `If-Match` request header (RFC 9110, section 13.1.1): `*`, or a comma-separated list of
 * entity tags (`"3"`, `W/"3"`). The hub's entity tags are record versions; a bare version (`3`)
 * is accepted too, as clients have sent it. A header of another shape is the client's mistake and
 * gets 400 naming the header, rather than a 412 that would send it to merge a change nobody made.
 */
import { badRequest } from '../errors.ts';

/** One list element: a strong or weak entity tag, or a bare version. */
const ELEMENT = /^(?:(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"|(\d+))$/;
const VERSION = /^\d{1,9}$/;

export const MALFORMED_IF_MATCH =
  'If-Match: malformed; send * or the ETag a read or write answered, e.g. If-Match: "3".';

/**
 * What `If-Match` asks for: undefined without the header (no check), `*` for any existing record,
 * else the versions its entity tags name (empty when none is one of ours: nothing matches).
 * Throws 400 for a header that is not `*` or a list of entity tags.
 */
export function parseIfMatch(header: string | undefined): readonly number[] | '*' | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return '*';
  // Empty list elements are allowed ("a, , b"), an empty header is not.
  const elements = value
    .split(',')
    .map((element) => element.trim())
    .filter(Boolean);
  if (elements.length === 0) throw badRequest(MALFORMED_IF_MATCH);
  const versions: number[] = [];
  for (const element of elements) {
    const match = ELEMENT.exec(element);
    if (!match) throw badRequest(MALFORMED_IF_MATCH);
    const tag = match[1] ?? match[2]!;
    if (VERSION.test(tag)) versions.push(Number(tag));
  }
  return versions;
}
