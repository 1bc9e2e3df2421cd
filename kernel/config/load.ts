/**
 * Loading server.yaml: find the file, parse YAML, interpolate `${ENV}`, validate every section
 * with its owner's zod schema. Every failure is a {@link ConfigError} that names the YAML key.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './errors.ts';
import { interpolate, type Env } from './interpolate.ts';
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

function describeIssue(issue: z.core.$ZodIssue): { path: string; message: string } {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const full = path ? `${path}.${key}` : key;
    return { path: full, message: path ? 'unknown key' : 'unknown section' };
  }
  if (issue.code === 'invalid_union' && (path.endsWith('db') || path.endsWith('db.driver'))) {
    return { path: path.endsWith('db') ? `${path}.driver` : path, message: 'must be one of sqlite, postgres, mysql, firestore' };
  }
  return { path: path || '(root)', message: issue.message };
}

/** Validates an already parsed document against the kernel's and the plugins' section schemas. */
export function validateConfig(document: unknown, pluginSections: SectionSchemas, env: Env, source = 'server.yaml'): HubConfig {
  const value = document ?? {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${source}: the file must be a YAML mapping of sections`);
  }
  const interpolated = interpolate(value, env);
  const schema = z.strictObject({ ...kernelSections, ...pluginSections });
  const result = schema.safeParse(interpolated);
  if (!result.success) {
    const { path, message } = describeIssue(result.error.issues[0]!);
    throw new ConfigError(`${source}: ${path}: ${message}`, path);
  }
  return result.data as HubConfig;
}

/** Parses YAML text and validates it. */
export function parseConfig(text: string, pluginSections: SectionSchemas, env: Env, source = 'server.yaml'): HubConfig {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    const detail = error instanceof YAMLParseError ? error.message.split('\n')[0] : String(error);
    throw new ConfigError(`${source}: invalid YAML: ${detail}`);
  }
  return validateConfig(document, pluginSections, env, source);
}

/** Finds, reads and validates the configuration. With no file, the built-in defaults apply. */
export async function loadConfig(options: { explicitPath?: string; cwd: string; env: Env; pluginSections: SectionSchemas }): Promise<LoadedConfig> {
  const path = resolveConfigPath(options.explicitPath, options.cwd);
  if (path === null) return { path: null, config: validateConfig({}, options.pluginSections, options.env) };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${path}: ${(error as Error).message}`);
  }
  return { path, config: parseConfig(text, options.pluginSections, options.env, path) };
}
