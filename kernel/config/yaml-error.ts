/**
 * A YAML syntax error as every command shows it: the parser's message, then the line before, the
 * offending line and a caret under the column. Kept free of the schemas, so `workspace-hub reload`
 * (which reads the file without validating it) can say it the same way without loading them.
 */
import { YAMLParseError } from 'yaml';

/** A value whose key may hold a credential (a URL may carry a password): its value is masked. */
export const SECRET_KEY = /pass|secret|token|key|credential|url|dsn|auth/i;

/**
 * The offending line of a YAML syntax error (1-based `line` and `col`, as the `yaml` package's
 * `linePos` says), numbered, with the line before it for context and a caret under the column (a
 * tab shows as `→`). A value whose key may hold a credential is masked with `*` of the same
 * length (the message can reach the log through a reload), so the caret still points where the
 * parser stopped.
 */
export function yamlExcerpt(text: string, line: number, col: number): string {
  const lines = text.split(/\r?\n/);
  const shown = (number: number) => {
    const raw = lines[number - 1] ?? '';
    const masked = raw.replace(
      /^(\s*-?\s*["']?([\w.-]+)["']?\s*:\s)(.+)$/,
      (whole, head: string, key: string, value: string) =>
        SECRET_KEY.test(key) ? head + '*'.repeat(value.length) : whole,
    );
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
 * `text`; anything else as its text.
 */
export function describeYamlError(error: unknown, text: string, source: string): string {
  if (!(error instanceof YAMLParseError)) return `${source}: invalid YAML: ${String(error)}`;
  const detail = error.message.split('\n')[0]!.replace(/:$/, '');
  const where = error.linePos?.[0];
  const excerpt = where ? `:\n${yamlExcerpt(text, where.line, where.col)}` : '';
  return `${source}: invalid YAML: ${detail}${excerpt}`;
}
