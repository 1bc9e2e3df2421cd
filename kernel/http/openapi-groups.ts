/**
 * How `/docs` groups the routes: by what a reader looks for, not by the plugin that serves them.
 * Each operation's OpenAPI tag is one of {@link DOC_GROUPS}, picked from its path (the admin
 * routes, the operator's routes) and else from the plugin that documents it; a plugin missing from
 * the mapping keeps its own name, so a new one is still listed.
 */

/** The groups in the order the reference lists them, each with the sentence shown under it. */
export const DOC_GROUPS = [
  {
    name: 'Session',
    description:
      "Who you are: your session, your profile picture and the hub's, joining with an invitation, and signing in with the company's identity provider.",
  },
  {
    name: 'Workspace',
    description:
      'The shared work: collections with their folders, requests and documents, environments, snippets, run results, live servers and pages, and plugin sources.',
  },
  {
    name: 'Discussions',
    description:
      'Comment threads on collections, folders, requests and run results, subscriptions to them, and the devices and key exchange of end-to-end encrypted discussions.',
  },
  {
    name: 'Notices',
    description:
      'What happened that concerns you: the notice list, the unread count, a live stream, and your notification settings.',
  },
  {
    name: 'LLM',
    description:
      'The language-model proxy: the models you may use, chat steps and streams, and your usage.',
  },
  {
    name: 'Admin',
    description:
      'Routes under /admin, for admin-role tokens: users and their tokens, invitations, every object of the tenant, device keys, LLM models and the hub avatar.',
  },
  {
    name: 'Console',
    description:
      "The web console's pages (HTML, for a browser): signing in and out with a token or the company's identity provider, and the pages an administrator or member opens there.",
  },
  {
    name: 'Operations',
    description:
      'For operators and tools: the front page, health and readiness probes, Prometheus metrics, this reference, and reloading the configuration.',
  },
] as const;

export type DocGroup = (typeof DOC_GROUPS)[number]['name'];

/** Where a plugin's routes go unless their path says otherwise. */
const BY_PLUGIN: Record<string, DocGroup> = {
  kernel: 'Operations',
  accounts: 'Session',
  avatars: 'Session',
  invites: 'Session',
  sso: 'Session',
  entities: 'Workspace',
  'plugin-sources': 'Workspace',
  discussions: 'Discussions',
  'mls-relay': 'Discussions',
  notices: 'Notices',
  'llm-proxy': 'LLM',
  console: 'Console',
};

/** Operations the operator uses wherever they are documented. */
const OPERATIONS = new Set(['GET /health', 'POST /admin/config/reload']);

/** The group of `METHOD /path`, documented by the plugin named `plugin`. */
export function docGroupOf(key: string, plugin: string): string {
  if (OPERATIONS.has(key)) return 'Operations';
  if (key.slice(key.indexOf(' ') + 1).startsWith('/admin/')) return 'Admin';
  return BY_PLUGIN[plugin] ?? plugin;
}
