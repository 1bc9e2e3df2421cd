/**
 * `${NAME}` and `${NAME:-default}` interpolation of string scalars in server.yaml. `$${NAME}` is a
 * literal `${NAME}`. Keys and non-string values are never touched.
 */
import { ConfigError } from './errors.ts';

const PLACEHOLDER =
  /\$\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type Env = Readonly<Record<string, string | undefined>>;

/** Interpolates one string; `path` names the YAML key for error messages. */
export function interpolateString(value: string, env: Env, path: string): string {
  return value.replace(
    PLACEHOLDER,
    (
      _match,
      escaped: string | undefined,
      name: string | undefined,
      fallback: string | undefined,
    ) => {
      if (escaped !== undefined) return '${' + escaped + '}';
      const found = env[name!];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(`Missing environment variable ${name} for config key ${path}`, path);
    },
  );
}

/**
 * Returns a copy of `value` with every string scalar interpolated. With `problems`, a missing
 * variable is recorded there (and the value left as written) instead of thrown, so a caller can
 * report it with every other problem of the file.
 */
export function interpolate(
  value: unknown,
  env: Env,
  path = '',
  problems?: { path: string; message: string }[],
): unknown {
  if (typeof value === 'string') {
    try {
      return interpolateString(value, env, path || '(root)');
    } catch (error) {
      if (!problems || !(error instanceof ConfigError)) throw error;
      problems.push({ path: path || '(root)', message: error.message });
      return value;
    }
  }
  if (Array.isArray(value))
    return value.map((item, index) =>
      interpolate(item, env, path ? `${path}.${index}` : String(index), problems),
    );
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      out[key] = interpolate(item, env, path ? `${path}.${key}` : key, problems);
    return out;
  }
  return value;
}
