/**
 * A YAML syntax error as every command shows it: the parser's message, then the line before, the
 * offending line and a caret under the column. Kept free of the schemas, so `workspace-hub reload`
 * (which reads the file without validating it) can say it the same way without loading them.
 */
import { YAMLParseError } from 'yaml';

/** A value whose key may hold a credential (a URL may carry a password): its value is masked. */
export const SECRET_KEY = /pass|secret|token|key|credential|url|dsn|auth/i;
/** A key at the start of a line (block style), and the rest of the line: its value. */
const BLOCK_KEY = /^(\s*-?\s*["']?([\w.-]+)["']?\s*:\s)(.+)$/;
/** A key and the value after it, anywhere on a line (also inside a flow mapping `{ a: b }`). */
const KEY_VALUE = /(["']?([\w.-]+)["']?\s*:\s+)([^\s,{}[\]][^,{}[\]]*)/g;
/** A line that opens a key (at its indentation), in block style or as a list item. */
const KEY_LINE = /^(\s*)(?:-\s+)?["']?([\w.-]+)["']?\s*:(?:\s|$)/;

const indentOf = (line: string) => /^\s*/.exec(line)![0].length;

/**
 * Whether line `index` (0-based) may continue the value of a credential-like key above it: a
 * block scalar (`clientSecret: >-`), a plain or quoted scalar folded onto more lines, or anything
 * nested under such a key — every line indented deeper than the nearest key line above that is
 * not deeper than it.
 */
function underSecretKey(lines: readonly string[], index: number): boolean {
  let depth = indentOf(lines[index] ?? '');
  for (let i = index - 1; i >= 0; i -= 1) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const opened = KEY_LINE.exec(line);
    if (!opened || opened[1]!.length >= depth) continue;
    if (SECRET_KEY.test(opened[2]!)) return true;
    depth = opened[1]!.length;
    if (depth === 0) return false;
  }
  return false;
}

/** The password of a URL's user information (`//user:password@`). */
const URL_PASSWORD = /(\/\/[^/\s:@]*:)([^@\s/]*)@/g;

/**
 * Line `index` with every value a credential-like key may hold, and every URL's password,
 * masked with `*` of the same length.
 */
function maskedLine(lines: readonly string[], index: number): string {
  const raw = lines[index] ?? '';
  if (underSecretKey(lines, index)) return raw.replace(/\S/g, '*');
  const block = BLOCK_KEY.exec(raw);
  const keys =
    block && SECRET_KEY.test(block[2]!)
      ? block[1]! + '*'.repeat(block[3]!.length)
      : raw.replace(KEY_VALUE, (whole, head: string, key: string, value: string) =>
          SECRET_KEY.test(key) ? head + '*'.repeat(value.length) : whole,
        );
  return keys.replace(
    URL_PASSWORD,
    (_, head: string, password: string) => `${head}${'*'.repeat(password.length)}@`,
  );
}

/**
 * The offending line of a YAML syntax error (1-based `line` and `col`, as the `yaml` package's
 * `linePos` says), numbered, with the line before it for context and a caret under the column (a
 * tab shows as `→`). The value of every key that may hold a credential is masked with `*` of the
 * same length — on its own line, in a flow mapping, and on the lines a block or folded value of
 * such a key continues on — and so is a URL's password (the message reaches the log and the
 * terminal), so the caret still points where the parser stopped. A reload's HTTP answer and audit
 * event carry no excerpt at all (`ConfigError.brief`).
 */
export function yamlExcerpt(text: string, line: number, col: number): string {
  const lines = text.split(/\r?\n/);
  const shown = (number: number) => {
    const masked = maskedLine(lines, number - 1);
    // A tab is shown as one visible character, so the caret counts columns as the parser does.
    const visible = masked.replaceAll('\t', '→');
    return visible.length > 200 ? `${visible.slice(0, 200)}…` : visible;
  };
  const width = String(line).length;
  const row = (label: string, content: string) => `  ${label.padStart(width)} | ${content}`;
  const out: string[] = [];
  if (line > 1) out.push(row(String(line - 1), shown(line - 1)));
  const current = shown(line);
  out.push(row(String(line), current));
  out.push(row('', `${' '.repeat(col - 1)}^`));
  return out.join('\n');
}

/**
 * `<source>: invalid YAML: <what>:` and the excerpt, for an error the `yaml` parser threw on
 * `text`; anything else as its text. Without `excerpt`, the parser's message alone (it names the
 * line and column, never the file's text).
 */
export function describeYamlError(
  error: unknown,
  text: string,
  source: string,
  { excerpt = true } = {},
): string {
  if (!(error instanceof YAMLParseError)) return `${source}: invalid YAML: ${String(error)}`;
  const detail = error.message.split('\n')[0]!.replace(/:$/, '');
  const where = error.linePos?.[0];
  const lines = where && excerpt ? `:\n${yamlExcerpt(text, where.line, where.col)}` : '';
  return `${source}: invalid YAML: ${detail}${lines}`;
}
