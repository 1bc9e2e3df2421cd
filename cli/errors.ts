/**
 * How the CLI reports failures: one line of text on stderr and exit code 1. Deliberate failures
 * (bad flags, config errors, 4xx from the identity service) carry a message meant for people; a
 * stack trace is only useful to us, so it is printed with `--verbose` alone.
 */
import { HttpError } from '../kernel/errors.ts';

/** A mistake on the command line, found before anything touches the database. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * The text to print for an error. Node's network errors are sometimes an `AggregateError` with an
 * empty message (one attempt per resolved address), so the first inner message is used instead.
 */
export function describeError(error: unknown, verbose = false): string {
  if (!(error instanceof Error)) return String(error);
  if (verbose && error.stack) return error.stack;
  if (error.message) return error.message;
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0], verbose);
  return error.name || 'Unknown error';
}

/** The identity service says only "User not found"; on the command line the id helps. */
export async function withUserId<R>(id: string, work: () => Promise<R>): Promise<R> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) throw new CliError(`No user found with id ${id}.`);
    throw error;
  }
}
