/**
 * Arguments shared by many commands, and parsers for values citty leaves as strings. citty keeps
 * only the last value of a repeated flag, so repeatable flags are read from the raw argv here.
 */
import type { ArgsDef } from 'citty';
import { UsageError } from './errors.ts';

/** `--config` and `--verbose`: every command has them. */
export const commonArgs = {
  config: {
    type: 'string',
    alias: 'c',
    valueHint: 'path',
    description: 'Configuration file (default: ./server.yaml when present, else built-in defaults)',
  },
  verbose: {
    type: 'boolean',
    description: 'Print stack traces with errors and debug logs on stderr',
  },
} satisfies ArgsDef;

/** `--json`: machine-readable output on stdout, nothing else there. */
export const jsonArg = {
  json: { type: 'boolean', description: 'Print JSON on stdout instead of text' },
} satisfies ArgsDef;

/** `--tenant`: which tenant's accounts to manage. */
export const tenantArg = {
  tenant: {
    type: 'string',
    valueHint: 'id',
    description: 'Tenant to act on (default: __default__; others need multitenancy.enabled)',
  },
} satisfies ArgsDef;

const camel = (kebab: string) => kebab.replace(/-([a-z])/g, (_m, ch: string) => ch.toUpperCase());

/**
 * Every value given for a repeatable flag, in order: `--flag a --flag b` and `--flag=a`, under
 * its kebab-case or camelCase name. Returns undefined when the flag is absent.
 */
export function collectFlag(rawArgs: readonly string[], name: string): string[] | undefined {
  const names = new Set([`--${name}`, `--${camel(name)}`]);
  const values: string[] = [];
  let seen = false;
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === '--') break;
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (!names.has(flag)) continue;
    seen = true;
    if (eq !== -1) {
      values.push(arg.slice(eq + 1));
      continue;
    }
    const next = rawArgs[i + 1];
    if (next === undefined || next.startsWith('--'))
      throw new UsageError(`Option --${name} needs a value.`);
    values.push(next);
    i++;
  }
  return seen ? values : undefined;
}

/**
 * A list flag: values may repeat and/or be comma-separated. `*` must be the only entry, empty
 * entries are refused, and a single empty value (`--flag ''`) means an empty list.
 */
export function parseListFlag(name: string, values: readonly string[]): string[] {
  if (values.length === 1 && values[0]!.trim() === '') return [];
  const entries = values.flatMap((value) => value.split(',')).map((entry) => entry.trim());
  if (entries.some((entry) => entry === ''))
    throw new UsageError(`--${name}: entries must not be empty.`);
  const unique = [...new Set(entries)];
  if (unique.includes('*') && unique.length > 1) {
    throw new UsageError(`--${name}: Wildcard access "*" must be the only entry.`);
  }
  return unique;
}

/** The range {@link parseCount} accepts; with `unlimited`, the word `unlimited` gives null. */
export interface CountRange {
  min?: number;
  max?: number;
  unlimited?: boolean;
}

/**
 * A whole number within the range (0 or more by default). One message for anything else, stating
 * the same range the check applies.
 */
export function parseCount(
  name: string,
  raw: string,
  { min = 0, max, unlimited = false }: CountRange = {},
): number | null {
  const value = raw.trim();
  if (unlimited && value.toLowerCase() === 'unlimited') return null;
  const number = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < min || (max !== undefined && number > max)) {
    const range = max === undefined ? `of ${min} or more` : `from ${min} to ${max}`;
    throw new UsageError(
      `--${name} must be a whole number ${range}${unlimited ? ' (or "unlimited")' : ''}, got "${raw}".`,
    );
  }
  return number;
}

/** A TCP port for `--port`; 0 asks the system for a free one. */
export function parsePort(raw: string): number {
  return parseCount('port', raw, { max: 65535 })!;
}
