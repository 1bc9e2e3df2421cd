/**
 * The HTML around every console page: a skip link, the header (the hub's name, who is signed in,
 * "Sign out"), the navigation with only the links the user may open, the main landmark with the
 * page's heading, and the footer. Styles and script are the hub's own files; nothing inline.
 */
import type { Child, FC } from 'hono/jsx';
import { AVATAR_PALETTE } from '../../kernel/identity/avatar-defaults.ts';
import { HUB_VERSION } from '../../kernel/version.ts';
import { SCRIPT, STYLE } from './assets.ts';
import { Form } from './forms.tsx';
import type { Me } from './page.ts';

/** A link of the navigation. */
export interface NavLink {
  href: string;
  label: string;
  current: boolean;
}

export interface LayoutProps {
  title: string;
  /** The console's root path (`/console` under the hub's base path). */
  base: string;
  /** The signed-in user, with the session's form token; none on the sign-in page. */
  signedIn?: { me: Me; csrf: string; nav: readonly NavLink[] } | undefined;
  /** The hub's API reference page (`/docs` under the hub's base path). */
  apiDocs: string;
  /** A narrow column (the sign-in and error pages). */
  narrow?: boolean;
  children?: Child;
}

/** The avatar palette as choices of a form, by a readable name (`sky-600` is "Sky"). */
export const COLOUR_OPTIONS = AVATAR_PALETTE.map((key) => {
  const name = key.split('-')[0]!;
  return { value: key, label: name.charAt(0).toUpperCase() + name.slice(1) };
});

export const Avatar: FC<{ initials: string; color: string }> = ({ initials, color }) => (
  <span class={`avatar av-${color}`} aria-hidden="true">
    {initials}
  </span>
);

export const Layout: FC<LayoutProps> = (props) => {
  const hub = props.signedIn?.me.hub.name;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={`${props.base}/assets/${STYLE.name}`} />
        <script src={`${props.base}/assets/${SCRIPT.name}`} defer></script>
        <title>
          {hub ? `${props.title} · ${hub} console` : `${props.title} · workspace-hub console`}
        </title>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href={props.base}>
            {hub ? `${hub} · console` : 'workspace-hub console'}
          </a>
          {props.signedIn ? (
            <div class="who">
              <Avatar
                initials={props.signedIn.me.user.avatarInitials}
                color={props.signedIn.me.user.avatarColor}
              />
              <span id="who">
                {props.signedIn.me.user.name}
                <span class="muted"> ({props.signedIn.me.user.role})</span>
              </span>
              <Form action={`${props.base}/sign-out`} csrf={props.signedIn.csrf} inline>
                <button type="submit" class="quiet">
                  Sign out
                </button>
              </Form>
            </div>
          ) : null}
        </header>
        {props.signedIn ? (
          <nav aria-label="Console">
            <ul>
              {props.signedIn.nav.map((link) => (
                <li>
                  <a href={link.href} aria-current={link.current ? 'page' : undefined}>
                    {link.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        <main id="main" tabindex={-1} class={props.narrow ? 'narrow' : undefined}>
          <h1>{props.title}</h1>
          {props.children}
        </main>
        <footer>
          <p class="note">
            workspace-hub {HUB_VERSION} · <a href={props.apiDocs}>API reference</a>
          </p>
        </footer>
      </body>
    </html>
  );
};
