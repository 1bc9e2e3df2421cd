/**
 * `${NAME}` and `${NAME:-default}` interpolation of string scalars in server.yaml. `$${NAME}` is a
 * literal `${NAME}`. Keys and non-string values are never touched.
 */
import { ConfigError } from './errors.ts';

const PLACEHOLDER =
  /\$\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type Env = Readonly<Record<string, string | undefined>>;

/** A `${NAME}` without a default whose variable is unset or empty. */
export class MissingVariableError extends ConfigError {
  readonly variable: string;
  constructor(variable: string, path: string) {
    super(`Missing environment variable ${variable} for config key ${path}`, path);
    this.variable = variable;
  }
}

/** A missing variable met while interpolating a whole document. */
export interface MissingVariable {
  path: string;
  message: string;
  variable: string;
}

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
      throw new MissingVariableError(name!, path);
    },
  );
}

/** Whether a string reads an environment variable (a `${NAME}` that is not the escaped `$${NAME}`). */
function readsVariable(value: string): boolean {
  for (const match of value.matchAll(PLACEHOLDER)) if (match[2] !== undefined) return true;
  return false;
}

/**
 * Returns a copy of `value` with every string scalar interpolated. With `problems`, a missing
 * variable is recorded there (and the value left as written) instead of thrown, so a caller can
 * report it with every other problem of the file. With `fromEnv`, the path of every value that
 * read a variable is added to it (such a value may be a secret wherever it stands).
 */
export function interpolate(
  value: unknown,
  env: Env,
  path = '',
  problems?: MissingVariable[],
  fromEnv?: Set<string>,
): unknown {
  if (typeof value === 'string') {
    if (fromEnv && readsVariable(value)) fromEnv.add(path || '(root)');
    try {
      return interpolateString(value, env, path || '(root)');
    } catch (error) {
      if (!problems || !(error instanceof MissingVariableError)) throw error;
      problems.push({ path: path || '(root)', message: error.message, variable: error.variable });
      return value;
    }
  }
  if (Array.isArray(value))
    return value.map((item, index) =>
      interpolate(item, env, path ? `${path}.${index}` : String(index), problems, fromEnv),
    );
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      out[key] = interpolate(item, env, path ? `${path}.${key}` : key, problems, fromEnv);
    return out;
  }
  return value;
}
