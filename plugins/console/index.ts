/**
 * The `console` plugin: the hub's web console at `/console`, server-rendered pages for
 * administrators and members that act as the signed-in user through the hub's own API, in
 * process (`kernel/http/in-process.ts`), so every rule of the API applies and none is written
 * twice. Sessions are rows of its table (`tables.ts`), so every instance on the database knows
 * them. How a page is added: docs/console.md.
 */
import { actingAs } from '../../kernel/storage/context.ts';
import { definePlugin } from '../../kernel/plugin.ts';
import { consoleSignInLink, offerConsole } from '../sso/index.ts';
import { consoleSchema, type ConsoleConfig } from './config.ts';
import { consolePaths } from './context.ts';
import { consoleDocs } from './docs.ts';
import type { ConsolePage } from './page.ts';
import { pages as defaultPages } from './pages/index.ts';
import { consoleRoutes } from './routes.tsx';
import { createSessions } from './sessions.ts';
import { consoleSessionsTable } from './tables.ts';

/**
 * The plugin serving `pages` (the hub mounts it with every page of `pages/index.ts`; a test may
 * add a page of its own).
 */
export const createConsolePlugin = (pages: readonly ConsolePage[]) =>
  definePlugin<ConsoleConfig>({
    name: 'console',
    // Single sign-on's result page offers the console (and its sign-in page the provider's link);
    // the kinds of record (their prefixes, nouns and access lists) are the entities registry's.
    dependencies: ['sso', 'entities'],
    api: consoleDocs(pages),
    config: { section: 'console', schema: consoleSchema, reloadable: true },
    tables: [consoleSessionsTable],
    migrations: [{ id: 'console/0001-sessions', createTables: [consoleSessionsTable] }],
    setup(ctx) {
      const sessions = createSessions({
        storage: ctx.storage,
        clock: ctx.clock,
        config: ctx.config,
        audit: ctx.audit,
        tokens: ctx.identity.tokens,
      });
      // A deleted user's sessions go with the user (their token is gone already).
      ctx.identity.users.onDelete(async (tx, user) => {
        await tx.table(consoleSessionsTable).deleteWhere({ userId: user.id });
      });
      offerConsole(ctx.identity, {
        action: () =>
          ctx.config().enabled ? `${consolePaths(ctx.hubConfig().server).base}/sso` : null,
      });
      return {
        pages: consoleRoutes(
          {
            config: ctx.config,
            hubConfig: ctx.hubConfig,
            sessions,
            api: ctx.api,
            clientIp: ctx.clientIp,
            auditedStore: (c, tenantId) => ctx.storage(tenantId, actingAs(c.get('auditScope'))),
            ssoLink: (tenantId) => consoleSignInLink(ctx.hubConfig(), tenantId),
          },
          pages,
        ),
      };
    },
  });

export const consolePlugin = createConsolePlugin(defaultPages);

// The plugin's public face: what a page is, for a test's own pages.
export { definePage, type ConsolePage } from './page.ts';
