/**
 * Loading server.yaml: find the file, parse YAML, interpolate `${ENV}`, validate every section
 * with its owner's zod schema. Every failure is a {@link ConfigError} that names the YAML key
 * (issues.ts words zod's issues).
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './errors.ts';
import { interpolate, type Env } from './interpolate.ts';
import { describeIssues, type ConfigProblem } from './issues.ts';
import { kernelSections } from './sections.ts';

export type SectionSchemas = Record<string, z.ZodType>;

/** The validated configuration: kernel sections plus every plugin's section. */
export type HubConfig = z.output<z.ZodObject<typeof kernelSections>> & Record<string, unknown>;

export interface LoadedConfig {
  /** Absolute path of the file read, or null when running on built-in defaults. */
  path: string | null;
  config: HubConfig;
}

/** The file to read: `--config` when given (it must exist), else ./server.yaml if present, else none. */
export function resolveConfigPath(explicit: string | undefined, cwd: string): string | null {
  if (explicit) {
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) throw new ConfigError(`Config file not found: ${path}`);
    return path;
  }
  const fallback = resolve(cwd, 'server.yaml');
  return existsSync(fallback) ? fallback : null;
}

/** The error for a list of problems: one line for one, a list for several. */
function problemsError(source: string, problems: readonly ConfigProblem[]): ConfigError {
  const lines = problems.map((p) => `${p.path}: ${p.message}`);
  const message =
    lines.length === 1
      ? `${source}: ${lines[0]}`
      : `${source}: ${lines.length} problems:\n${lines.map((line) => `  ${line}`).join('\n')}`;
  return new ConfigError(message, problems[0]?.path, problems);
}

/** Validates an already parsed document against the kernel's and the plugins' section schemas. */
export function validateConfig(
  document: unknown,
  pluginSections: SectionSchemas,
  env: Env,
  source = 'server.yaml',
): HubConfig {
  const value = document ?? {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${source}: the file must be a YAML mapping of sections`);
  }
  // Every missing variable is reported, together with every other problem of the file.
  const problems: ConfigProblem[] = [];
  const interpolated = interpolate(value, env, '', problems);
  const schema = z.strictObject({ ...kernelSections, ...pluginSections });
  const result = schema.safeParse(interpolated);
  if (result.success && problems.length === 0) return result.data as HubConfig;
  const found = result.success ? [] : describeIssues(result.error.issues, schema, interpolated);
  // A misspelled key first: it usually explains a "missing" one in the same section.
  const unknown = found.filter((p) => p.message.startsWith('unknown'));
  const broken = new Set(problems.map((p) => p.path));
  const rest = found.filter((p) => !p.message.startsWith('unknown') && !broken.has(p.path));
  throw problemsError(source, [...problems, ...unknown, ...rest]);
}

/** A key whose value may be a credential (a URL may carry a password): its value is masked. */
const SECRET_KEY = /pass|secret|token|key|credential|url|dsn|auth/i;

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

/** Parses YAML text and validates it. */
export function parseConfig(
  text: string,
  pluginSections: SectionSchemas,
  env: Env,
  source = 'server.yaml',
): HubConfig {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    if (!(error instanceof YAMLParseError))
      throw new ConfigError(`${source}: invalid YAML: ${String(error)}`);
    const detail = error.message.split('\n')[0]!.replace(/:$/, '');
    const where = error.linePos?.[0];
    const excerpt = where ? `\n${yamlExcerpt(text, where.line, where.col)}` : '';
    throw new ConfigError(`${source}: invalid YAML: ${detail}${excerpt ? `:${excerpt}` : ''}`);
  }
  return validateConfig(document, pluginSections, env, source);
}

/** Finds, reads and validates the configuration. With no file, the built-in defaults apply. */
export async function loadConfig(options: {
  explicitPath?: string;
  cwd: string;
  env: Env;
  pluginSections: SectionSchemas;
}): Promise<LoadedConfig> {
  const path = resolveConfigPath(options.explicitPath, options.cwd);
  if (path === null)
    return { path: null, config: validateConfig({}, options.pluginSections, options.env) };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${path}: ${(error as Error).message}`);
  }
  return { path, config: parseConfig(text, options.pluginSections, options.env, path) };
}
