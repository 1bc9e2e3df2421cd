/**
 * How a user's figures read on the list and on their page: access by name per list, the single
 * sign-on link, LLM tokens this month against the cap, and stored run results against the limits.
 */
import type { FC } from 'hono/jsx';
import { AccessSummary } from './access-view.tsx';
import { pluralTitle, type Catalog } from './catalog.ts';
import { bytes, type Usage, type UserRecord } from './user-data.ts';

/** Every list of the user, by name; an administrator's entity lists are "all" by role. */
export const AccessLines: FC<{ user: UserRecord; catalog: Catalog }> = ({ user, catalog }) => {
  const admin = user.role === 'admin';
  return (
    <ul class="plain">
      {admin ? <li>every entity (administrator)</li> : null}
      {catalog
        .filter((entry) => !admin || entry.field === 'llmModels')
        .map((entry) => (
          <li>
            <span class="muted">{pluralTitle(entry.field)}:</span>{' '}
            <AccessSummary entry={entry} ids={user[entry.field]} />
          </li>
        ))}
    </ul>
  );
};

/** Which identity provider the user signs in with, if any. */
export const SsoLink: FC<{ user: UserRecord }> = ({ user }) =>
  user.identityProvider ? (
    <span>
      linked: {new URL(user.identityProvider.issuer).host}{' '}
      <span class="muted">({user.identityProvider.subject})</span>
    </span>
  ) : (
    <span class="muted">not linked</span>
  );

/** LLM tokens used this month against the cap. */
export const LlmUsage: FC<{ user: UserRecord; usage: Usage }> = ({ user, usage }) => {
  const used = usage.tokens.get(user.id) ?? 0;
  const cap = user.llmMonthlyTokenLimit;
  const over = cap !== null && used >= cap;
  return (
    <span class={over ? 'bad' : undefined}>
      {used.toLocaleString('en')} {cap === null ? '(no cap)' : `of ${cap.toLocaleString('en')}`}
      {user.llmAccess ? '' : ' · LLM off'}
    </span>
  );
};

/** Stored run results against the limits. */
export const RunUsage: FC<{ user: UserRecord; usage: Usage }> = ({ user, usage }) => {
  const runs = usage.runs.get(user.id);
  if (!runs) return <span class="muted">—</span>;
  const { count, limits } = runs;
  return (
    <span>
      {count}
      {limits.count === null ? '' : ` of ${limits.count}`} · {bytes(runs.bytes)}
      {limits.bytes === null ? '' : ` of ${bytes(limits.bytes)}`}
    </span>
  );
};
