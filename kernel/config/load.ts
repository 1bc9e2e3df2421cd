/**
 * Loading server.yaml: find the file, parse YAML, interpolate `${ENV}`, validate every section
 * with its owner's zod schema. Every failure is a {@link ConfigError} that names the YAML key
 * (issues.ts words zod's issues).
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './errors.ts';
import { interpolate, type Env, type MissingVariable } from './interpolate.ts';
import { describeIssues, type ConfigProblem } from './issues.ts';
import { kernelSections } from './sections.ts';
import { describeYamlError } from './yaml-error.ts';

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

/**
 * What a command does not act on (the CLI's user commands never connect to Redis, nor use the
 * identity provider's client secret): a `${NAME}` missing there does not stop the command. Each
 * entry of `paths` is a section (`redis`) or a key (`sso.oidc.clientSecret`); the narrowest entry
 * that holds the missing value is left out, so the command runs as if it were absent, and `warn`
 * hears which variable and key.
 */
export interface UnusedSections {
  paths: readonly string[];
  warn(message: string): void;
}

/** Deletes the value at a dot path of `document` (a no-op where the path leads nowhere). */
function deleteAt(document: Record<string, unknown>, path: string): void {
  const keys = path.split('.');
  let node: unknown = document;
  for (const key of keys.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return;
    node = (node as Record<string, unknown>)[key];
  }
  if (node !== null && typeof node === 'object')
    delete (node as Record<string, unknown>)[keys.at(-1)!];
}

/**
 * The missing variables that stop loading; one under an `unused` path leaves that path out of
 * `document` instead, with a warning.
 */
function fatalMissing(
  document: Record<string, unknown>,
  missing: readonly MissingVariable[],
  source: string,
  unused: UnusedSections | undefined,
): ConfigProblem[] {
  const fatal: ConfigProblem[] = [];
  for (const entry of missing) {
    const holder = unused?.paths
      .filter((path) => entry.path === path || entry.path.startsWith(`${path}.`))
      .sort((a, b) => b.length - a.length)[0];
    if (!unused || holder === undefined) {
      fatal.push({ path: entry.path, message: entry.message });
      continue;
    }
    deleteAt(document, holder);
    const what = holder.includes('.') ? holder : `the ${holder} section`;
    unused.warn(
      `${source}: ${entry.variable} (${entry.path}) is not set in this environment; this command does not use ${what}, so it runs without it.`,
    );
  }
  return fatal;
}

/** The paths of each validated config whose values read an environment variable (`${NAME}`). */
const environmentPaths = new WeakMap<HubConfig, ReadonlySet<string>>();

/**
 * The dotted paths (`db.password`, `llm.providers.0.apiKey`) whose values in `config` came from
 * `${NAME}` placeholders: a value the file did not show may be a secret, whatever its key.
 */
export function pathsFromEnvironment(config: HubConfig): ReadonlySet<string> {
  return environmentPaths.get(config) ?? new Set();
}

/**
 * Gives `config`, put together from sections of `sources` (a reload keeps some sections of the
 * running config), the environment paths of the sources its sections came from; a section taken
 * whole from none of them (partly kept) gets the paths of all, so nothing read from a variable is
 * ever shown.
 */
export function carryEnvironmentPaths(config: HubConfig, sources: readonly HubConfig[]): void {
  const paths = new Set<string>();
  for (const section of Object.keys(config)) {
    const same = sources.filter((source) => source[section] === config[section]);
    for (const source of same.length > 0 ? same : sources)
      for (const path of pathsFromEnvironment(source))
        if (path === section || path.startsWith(`${section}.`)) paths.add(path);
  }
  environmentPaths.set(config, paths);
}

/** Validates an already parsed document against the kernel's and the plugins' section schemas. */
export function validateConfig(
  document: unknown,
  pluginSections: SectionSchemas,
  env: Env,
  source = 'server.yaml',
  unused?: UnusedSections,
): HubConfig {
  const value = document ?? {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${source}: the file must be a YAML mapping of sections`);
  }
  // Every missing variable is reported, together with every other problem of the file.
  const missing: MissingVariable[] = [];
  const fromEnv = new Set<string>();
  const interpolated = interpolate(value, env, '', missing, fromEnv) as Record<string, unknown>;
  const problems = fatalMissing(interpolated, missing, source, unused);
  const schema = z.strictObject({ ...kernelSections, ...pluginSections });
  const result = schema.safeParse(interpolated);
  if (result.success && problems.length === 0) {
    const config = result.data as HubConfig;
    environmentPaths.set(config, fromEnv);
    return config;
  }
  const found = result.success ? [] : describeIssues(result.error.issues, schema, interpolated);
  // A misspelled key first: it usually explains a "missing" one in the same section.
  const unknown = found.filter((p) => p.message.startsWith('unknown'));
  const broken = new Set(problems.map((p) => p.path));
  const rest = found.filter((p) => !p.message.startsWith('unknown') && !broken.has(p.path));
  throw problemsError(source, [...problems, ...unknown, ...rest]);
}

/** Parses YAML text and validates it. */
export function parseConfig(
  text: string,
  pluginSections: SectionSchemas,
  env: Env,
  source = 'server.yaml',
  unused?: UnusedSections,
): HubConfig {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new ConfigError(
      describeYamlError(error, text, source),
      undefined,
      undefined,
      describeYamlError(error, text, source, { excerpt: false }),
    );
  }
  return validateConfig(document, pluginSections, env, source, unused);
}

/** Finds, reads and validates the configuration. With no file, the built-in defaults apply. */
export async function loadConfig(options: {
  explicitPath?: string;
  cwd: string;
  env: Env;
  pluginSections: SectionSchemas;
  unused?: UnusedSections;
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
  return {
    path,
    config: parseConfig(text, options.pluginSections, options.env, path, options.unused),
  };
}
