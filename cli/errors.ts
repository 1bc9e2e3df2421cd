/**
 * How the CLI reports failures: one line of text on stderr (or `{"error": "..."}` with `--json`)
 * and an exit code that says what kind of failure it was. Deliberate failures (bad flags, config
 * errors, 4xx from the identity service) carry a message meant for people; a stack trace is only
 * useful to us, so it is printed with `--verbose` alone.
 *
 * This module is loaded by every command, `--help` included: it imports nothing heavy (types only).
 */
import { ACCESS_LISTS } from '../kernel/identity/access-lists.ts';
import type { Store } from '../kernel/storage/contract.ts';
import type { UsersService } from '../kernel/identity/users.ts';

/** Exit codes, documented in the README ("Exit codes"). */
export const EXIT = {
  ok: 0,
  /** The operation failed: refused by the hub's rules, not found, database unreachable, … */
  failed: 1,
  /** The command line is wrong: unknown command or option, missing or malformed flag value. */
  usage: 2,
  /** The configuration file is missing, unreadable or invalid. */
  config: 3,
  /** `reload`: no running server was found. */
  noServer: 4,
} as const;

/** A failure meant for people, with its exit code (`failed` unless said otherwise). */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT.failed) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** A mistake on the command line, found before anything touches the database (exit code 2). */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}

/** The exit code for any error a command threw. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof Error && error.name === 'ConfigError') return EXIT.config;
  return EXIT.failed;
}

/** Service field names and the flags that set them, so a message names what the user typed. */
const FIELD_FLAGS: Record<string, string> = {
  name: '--name',
  role: '--role',
  ...Object.fromEntries(ACCESS_LISTS.map((list) => [list.field, `--${list.flag}`])),
  llmAccess: '--llm-access',
  llmMonthlyTokenLimit: '--llm-monthly-tokens',
  avatarInitials: '--avatar-initials',
  avatarColor: '--avatar-color',
  expiresInHours: '--expires-in-hours',
};

/** `name: already in use` from the identity service becomes `--name: already in use`. */
export function flagMessage(message: string): string {
  const match = /^([A-Za-z]+)(?:\.\d+)?: /.exec(message);
  const flag = match && FIELD_FLAGS[match[1]!];
  return flag ? `${flag}: ${message.slice(match[0].length)}` : message;
}

/**
 * The text to print for an error. Node's network errors are sometimes an `AggregateError` with an
 * empty message (one attempt per resolved address), so the first inner message is used instead.
 */
export function describeError(error: unknown, verbose = false): string {
  if (!(error instanceof Error)) return String(error);
  if (verbose && error.stack) return error.stack;
  if (error.name === 'HttpError' && (error as { status?: number }).status! < 500)
    return flagMessage(error.message);
  if (error.message) return error.message;
  if (error instanceof AggregateError && error.errors.length > 0)
    return describeError(error.errors[0], verbose);
  return error.name || 'Unknown error';
}

function isNotFound(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'HttpError' &&
    (error as { status?: number }).status === 404
  );
}

/**
 * Runs `work` with the id of the user the command line named, by id or by name (an exact id wins;
 * names match case-insensitively). Every command that takes a user goes through here, so they all
 * accept the same thing and say the same when there is no such user: the identity service says
 * only "User not found", on the command line what was typed helps.
 */
export async function withUser<R>(
  users: Pick<UsersService, 'findByIdOrName'>,
  store: Store,
  idOrName: string,
  work: (id: string) => Promise<R>,
): Promise<R> {
  try {
    return await work((await users.findByIdOrName(store, idOrName)).id);
  } catch (error) {
    // Also when the user was deleted between the lookup and the work.
    if (isNotFound(error)) throw new CliError(`No user found with id or name ${idOrName}.`);
    throw error;
  }
}
