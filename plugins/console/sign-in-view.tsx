/**
 * The sign-in page's content: a token field and "Sign in", and with single sign-on the link to
 * sign in with the identity provider. It names the tenant by the id the person came with, never
 * by its display name (which only a signed-in person sees).
 */
import type { FC } from 'hono/jsx';
import { Field, FormMessage, type FormState } from './forms.tsx';

export interface SignInViewProps {
  /** The console's root path. */
  base: string;
  /** The tenant asked for with `?tenant=`; null for the default tenant. */
  tenantId: string | null;
  /** "Sign in with <provider>" when single sign-on admits the tenant. */
  sso: { provider: string; href: string } | null;
  state?: FormState | undefined;
  /** Why the person is here again (signed out, session ended). */
  notice?: string | undefined;
}

export const SignInView: FC<SignInViewProps> = (props) => (
  <>
    {props.notice ? (
      <p class="notice" role="status" id="notice">
        {props.notice}
      </p>
    ) : null}
    <div class="card">
      {props.tenantId ? (
        <p id="tenant">
          Tenant <b>{props.tenantId}</b> of this hub.
        </p>
      ) : null}
      {/* No form token yet: the hub checks the browser's Origin, and a session starts here. */}
      <form method="post" action={`${props.base}/sign-in`} class="stack">
        {props.tenantId ? <input type="hidden" name="tenant" value={props.tenantId} /> : null}
        <FormMessage state={props.state} />
        <Field
          name="token"
          label="Token"
          type="password"
          autocomplete="off"
          required
          hint="An API token (hbk_…) of your account, from your administrator or the command line."
          state={props.state}
        />
        <button type="submit">Sign in</button>
      </form>
    </div>
    {props.sso ? (
      <div class="card">
        <p>Or use your company account:</p>
        <a id="sso" class="button" href={props.sso.href}>
          Sign in with {props.sso.provider}
        </a>
        <p class="note">After signing in there, choose "Open the console".</p>
      </div>
    ) : null}
  </>
);
