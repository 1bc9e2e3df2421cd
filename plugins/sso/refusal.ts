/** Refusal pages: why a sign-in did not work, with a 4xx status (503 when a dependency is down). */
import { HttpError } from '../../kernel/errors.ts';
import { ProviderMisconfigured, ProviderUnavailable, SignInRefused } from './oidc.ts';

/** A refusal page with its status; thrown inside the handlers, rendered by {@link answer}. */
export class Refusal extends Error {
  readonly status: 400 | 403 | 404 | 429 | 503;
  readonly title: string;
  readonly reason: string;
  readonly retry: boolean;
  /** The retry button's words, when starting again is the expected next step. */
  readonly retryLabel: string | undefined;
  constructor(
    status: Refusal['status'],
    title: string,
    reason: string,
    retry = true,
    retryLabel?: string,
  ) {
    super(reason);
    this.status = status;
    this.title = title;
    this.reason = reason;
    this.retry = retry;
    this.retryLabel = retryLabel;
  }
}

/** The refusal of a tenant that does not admit single sign-on, whether it exists or not. */
export const notAdmitted = (id: string) =>
  new Refusal(
    404,
    'Sign-in not available',
    `tenant: single sign-on is not available for "${id}" on this hub.`,
    false,
  );

/** Any failure as a page: refusals as they are, HTTP errors by status, the rest as 503. */
export function asRefusal(error: unknown): Refusal {
  if (error instanceof Refusal) return error;
  if (error instanceof SignInRefused)
    return new Refusal(400, 'Sign-in refused', `The sign-in cannot go on: ${error.message}.`);
  if (error instanceof ProviderMisconfigured)
    return new Refusal(
      503,
      'Sign-in unavailable',
      "The hub's single sign-on settings do not match the identity provider. Ask the hub administrator: the hub's log says what to change.",
      false,
    );
  if (error instanceof ProviderUnavailable)
    return new Refusal(
      503,
      'Sign-in unavailable',
      'The identity provider cannot be reached right now. Try again in a moment.',
    );
  if (error instanceof HttpError) {
    if (error.status === 429)
      return new Refusal(
        429,
        'Too many attempts',
        'Too many failed sign-ins from this address. Wait a while, then try again.',
      );
    if (error.status === 400 || error.status === 403 || error.status === 404)
      return new Refusal(error.status, 'Sign-in refused', error.message);
    return new Refusal(
      503,
      'Sign-in unavailable',
      error.status === 503
        ? error.message
        : 'The hub cannot complete sign-ins right now. Try again in a moment.',
    );
  }
  return new Refusal(
    503,
    'Sign-in unavailable',
    'The hub cannot complete sign-ins right now. Try again in a moment.',
  );
}
