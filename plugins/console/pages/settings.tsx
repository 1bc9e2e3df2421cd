/**
 * `/console/settings`: "Reload configuration" with the outcome of every section (as
 * `POST /admin/config/reload` answers it), the configuration the hub runs with, every secret shown
 * as `***` (`GET /admin/config`, the operator's: another tenant's administrators get a note), and
 * the hub's name and avatar, whose initials and colour the form sets (`PUT /admin/hub/avatar`).
 */
import type { FC } from 'hono/jsx';
import { stringify } from 'yaml';
import { ApiError } from '../api-client.ts';
import { CheckField, Field, Form, SelectField, failedForm, type FormState } from '../forms.tsx';
import { Avatar, COLOUR_OPTIONS } from '../layout.tsx';
import { definePage, type PageContext, type PageView } from '../page.ts';
import { Done, Table } from './parts.tsx';

interface SectionOutcome {
  section: string;
  status: 'reloaded' | 'unchanged' | 'failed' | 'restart-required';
  error?: string;
}

const HUB_FIELDS = ['initials', 'color', 'removeImage'];

/** The configuration, or null when it is not this administrator's to read. */
async function effectiveConfig(page: PageContext): Promise<Record<string, unknown> | null> {
  try {
    return (await page.api.get<{ config: Record<string, unknown> }>('/admin/config')).config;
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return null;
    throw error;
  }
}

async function settingsView(
  page: PageContext,
  options: { reload?: SectionOutcome[]; reloadError?: string; hub?: FormState } = {},
): Promise<PageView> {
  const config = await effectiveConfig(page);
  const hub = page.me.hub;
  return {
    title: 'Settings',
    body: (
      <>
        <Done messages={{ hub: 'Hub avatar saved.' }} done={page.query('done')} />
        {/* Reloading, like reading, the hub's configuration is the default tenant's admins' only. */}
        {config === null ? null : (
          <section class="card" aria-labelledby="reload-title">
            <h2 id="reload-title">Reload configuration</h2>
            <p>Reads server.yaml again and applies what can change while the hub runs.</p>
            {options.reloadError ? (
              <p class="notice bad" role="alert" id="reload-error">
                {options.reloadError}
              </p>
            ) : null}
            <Form action={page.href('/settings')} csrf={page.csrf} intent="reload" label="Reload">
              <button type="submit">Reload configuration</button>
            </Form>
          </section>
        )}
        {options.reload ? <ReloadReport sections={options.reload} /> : null}
        <section class="card" aria-labelledby="hub-title">
          <h2 id="hub-title">The hub's name and avatar</h2>
          <p>
            <Avatar initials={hub.initials} color={hub.color} /> <b id="hub-name">{hub.name}</b>
          </p>
          <p class="note">
            The name is the tenant's, given when it was made; HarborClient shows it with the avatar.
          </p>
          <Form action={page.href('/settings')} csrf={page.csrf} intent="hub" state={options.hub}>
            <Field name="initials" label="Initials" value={hub.initials} state={options.hub} />
            <SelectField
              name="color"
              label="Colour"
              value={hub.color}
              state={options.hub}
              options={COLOUR_OPTIONS}
            />
            {hub.imageUrl ? (
              <CheckField name="removeImage" label="Remove the picture" state={options.hub} />
            ) : null}
            <button type="submit">Save hub avatar</button>
          </Form>
        </section>
        <ConfigView config={config} />
      </>
    ),
    ...(options.hub || options.reloadError ? { status: 400 as const } : {}),
  };
}

const ReloadReport: FC<{ sections: readonly SectionOutcome[] }> = ({ sections }) => (
  <Table id="reload" title="Reload report" columns={['Section', 'Outcome', 'Why']}>
    {sections.map((section) => (
      <tr data-section={section.section}>
        <td>
          <code>{section.section}</code>
        </td>
        <td
          class={
            section.status === 'failed' ? 'bad' : section.status === 'reloaded' ? 'good' : undefined
          }
        >
          {section.status}
        </td>
        <td>{section.error ?? ''}</td>
      </tr>
    ))}
  </Table>
);

/** Every section as YAML, as server.yaml would write it, secrets as `***`. */
const ConfigView: FC<{ config: Record<string, unknown> | null }> = ({ config }) => (
  <section class="card" aria-labelledby="config-title">
    <h2 id="config-title">Effective configuration</h2>
    {config === null ? (
      <p class="muted" id="config-note">
        The hub's configuration is shown to administrators of the default tenant.
      </p>
    ) : (
      <>
        <p class="note">
          What the hub runs with, defaults included. Secrets, and every value read from an
          environment variable, show as ***.
        </p>
        {/* The text scrolls inside its own box (pre's max-height), so the box takes the focus. */}
        <pre id="config" tabindex={0} role="region" aria-labelledby="config-title">
          {stringify(config)}
        </pre>
      </>
    )}
  </section>
);

export const settingsPage = definePage({
  path: '/settings',
  summary:
    "Reload the configuration, read the effective one (secrets as ***), set the hub's avatar",
  admin: true,
  nav: 'Settings',
  get: (page) => settingsView(page),
  async post(page, fields) {
    if (fields.intent === 'reload') {
      try {
        const report = await page.api.send<{ sections: SectionOutcome[] }>(
          'POST',
          '/admin/config/reload',
        );
        return { ...(await settingsView(page, { reload: report.sections })), status: 200 };
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 400) throw error;
        return settingsView(page, { reloadError: error.message });
      }
    }
    const body = {
      initials: fields.initials ?? '',
      color: fields.color ?? '',
      ...(fields.removeImage === 'on' ? { imageDataUrl: null } : {}),
    };
    try {
      await page.api.send('PUT', '/admin/hub/avatar', body);
      return { redirect: '/settings?done=hub' };
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      return settingsView(page, { hub: failedForm(fields, error, HUB_FIELDS) });
    }
  },
});
