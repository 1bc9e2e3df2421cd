/**
 * Every answer a test hub gives is checked against the hub's own `/openapi.json`, so the document
 * and the code cannot drift apart: the status must be documented for that method and path
 * template, a JSON body must match the schema documented for that status (error bodies the one
 * `Error` schema), and a body of another type must be of a documented type. A path that matches no
 * template may only answer a documented error (404), and a method the path does not have 404 or
 * 405. A mismatch throws from `TestHub.request`, failing the test that sent the request.
 *
 * Opting out: `request(method, path, { contract: false })`, only for requests deliberately sent to
 * routes no API document covers. `HUB_TEST_OPENAPI_STATS=<file>` appends one JSON line of counts
 * per closed hub to that file (sum them for the whole suite's figure).
 */
import { appendFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { expect } from 'vitest';

export interface CheckedAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/**
 * Checks one answer; throws an Error that names the route, status and what does not match.
 * Returns what was checked (`GET /collections/{id} 200`, or `GET (no route) 404`).
 */
export type AnswerCheck = (method: string, path: string, answer: CheckedAnswer) => string;

interface Operation {
  responses: Record<string, any>;
}

interface Template {
  template: string;
  pattern: RegExp;
  literals: number;
  item: Record<string, Operation>;
}

const FORMATS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  email: /^[^\s@]+@[^\s@]+$/,
};

function formatsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const inner of value) formatsIn(inner, found);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'format' && typeof inner === 'string') found.add(inner);
      else formatsIn(inner, found);
    }
  }
  return found;
}

const mediaType = (type: string | null) => (type ?? '').split(';')[0]!.trim().toLowerCase();
const isJson = (type: string) => /^application\/([\w.+-]*\+)?json$/.test(type);

/** The documented type that covers `type`: itself, or a `image/*` style range. */
function documentedType(content: Record<string, unknown>, type: string): string | undefined {
  if (type in content) return type;
  return Object.keys(content).find(
    (key) => key === '*/*' || (key.endsWith('/*') && type.startsWith(key.slice(0, -1))),
  );
}

/** Builds the checker for one document; the compiled schemas are shared by every hub serving it. */
function createChecker(doc: any): AnswerCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  for (const format of formatsIn(doc)) ajv.addFormat(format, FORMATS[format] ?? true);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  const compiled = new Map<string, ValidateFunction>();
  const validator = (pointer: string): ValidateFunction => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi.json#${pointer}` });
      compiled.set(pointer, validate);
    }
    return validate;
  };
  const escape = (segment: string) =>
    encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'));

  const templates: Template[] = Object.entries<Record<string, Operation>>(doc.paths).map(
    ([template, item]) => {
      const parts = template.split('/');
      const source = parts
        .map((part) =>
          /^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('/');
      return {
        template,
        pattern: new RegExp(`^${source}$`),
        literals: parts.filter((part) => !part.startsWith('{')).length,
        item,
      };
    },
  );
  /** The most literal template matching the path (`/docs/redoc.standalone.js` before `/docs/{x}`). */
  const match = (path: string) =>
    templates.filter((t) => t.pattern.test(path)).sort((a, b) => b.literals - a.literals)[0];

  /** The response object for a status, following `#/components/responses/…`, with its pointer. */
  const response = (operation: Operation, pointer: string, status: string) => {
    const found = operation.responses[status];
    if (!found) return undefined;
    const ref = found.$ref as string | undefined;
    if (!ref) return { value: found, pointer: `${pointer}/responses/${status}` };
    const name = ref.replace('#/components/responses/', '');
    return {
      value: doc.components.responses[name],
      pointer: `/components/responses/${escape(name)}`,
    };
  };

  const errorSchema = validator('/components/schemas/Error');

  return (method, rawPath, answer) => {
    const path = rawPath.replace(/^https?:\/\/[^/]+/, '').split(/[?#]/)[0]!;
    const route = `${method} ${path}`;
    const fail = (what: string): never => {
      const body = answer.text.length > 600 ? `${answer.text.slice(0, 600)}…` : answer.text;
      throw new Error(
        `Answer does not match /openapi.json: ${route} answered ${answer.status}: ${what}\nBody: ${body}`,
      );
    };
    const ajvErrors = (validate: ValidateFunction) =>
      (validate.errors ?? [])
        .slice(0, 8)
        .map((e) => `body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`)
        .join('; ');
    const errorBody = (checked: string) => {
      if (mediaType(answer.headers.get('content-type')) !== 'application/json')
        fail('an error answer must be JSON');
      if (!errorSchema(answer.body))
        fail(`the error body does not match the Error schema: ${ajvErrors(errorSchema)}`);
      return checked;
    };

    const found = match(path);
    if (!found) {
      if (answer.status !== 404) fail('no path template of the document matches this path');
      return errorBody(`${method} (no route) ${answer.status}`);
    }
    const lower = method.toLowerCase();
    const operation = found.item[lower === 'head' ? 'get' : lower];
    if (!operation) {
      if (answer.status !== 404 && answer.status !== 405)
        fail(`${found.template} documents no ${method}`);
      return errorBody(`${method} ${found.template} (no such method) ${answer.status}`);
    }
    const pointer = `/paths/${escape(found.template)}/${lower === 'head' ? 'get' : lower}`;
    const documented = response(operation, pointer, String(answer.status));
    const where = `${method} ${found.template}`;
    const checked = `${where} ${answer.status}`;
    if (!documented) {
      return fail(
        `status ${answer.status} is not documented for ${where} (documented: ${Object.keys(operation.responses).join(', ')})`,
      );
    }
    const content = documented.value.content as Record<string, { schema?: unknown }> | undefined;
    if (method === 'HEAD' || answer.text === '') {
      if (answer.status >= 400 && method !== 'HEAD') fail('an error answer must have a body');
      return checked;
    }
    if (!content) return fail(`${where} documents no body for status ${answer.status}`);
    const type = mediaType(answer.headers.get('content-type'));
    const key = documentedType(content, type);
    if (!key)
      return fail(
        `content type ${type || '(none)'} is not documented for ${where} ${answer.status} (documented: ${Object.keys(content).join(', ')})`,
      );
    if (!isJson(type) || !content[key]!.schema) return checked;
    const validate = validator(`${documented.pointer}/content/${escape(key)}/schema`);
    if (!validate(answer.body))
      fail(`the body does not match the documented schema of ${where}: ${ajvErrors(validate)}`);
    return checked;
  };
}

const checkers = new Map<string, AnswerCheck>();

/** The checker for a document's text (hubs with the same plugins share it). */
export function answerChecker(documentText: string): AnswerCheck {
  let checker = checkers.get(documentText);
  if (!checker) {
    checker = createChecker(JSON.parse(documentText));
    checkers.set(documentText, checker);
  }
  return checker;
}

/** Counts of checked answers for `HUB_TEST_OPENAPI_STATS`. */
export interface AnswerStats {
  checked: number;
  errors: number;
  skipped: number;
  operations: Set<string>;
}

export const newAnswerStats = (): AnswerStats => ({
  checked: 0,
  errors: 0,
  skipped: 0,
  operations: new Set(),
});

/** Appends one line of counts to the file named by `HUB_TEST_OPENAPI_STATS`, if set. */
export function writeAnswerStats(stats: AnswerStats): void {
  const file = process.env.HUB_TEST_OPENAPI_STATS;
  if (!file || (stats.checked === 0 && stats.skipped === 0)) return;
  const line = {
    file: expect.getState().testPath,
    checked: stats.checked,
    errors: stats.errors,
    skipped: stats.skipped,
    operations: [...stats.operations],
  };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}
