/**
 * `workspace-hub sso …`: the people single sign-on knows, on the server's machine — which users
 * are linked to the identity provider, linking an existing user (a one-time link, or the person's
 * subject) and unlinking one, and blocking a person the provider still admits (the same rules as
 * `/admin/sso/links`, `/admin/sso/link-codes` and `/admin/sso/blocks`).
 */
import { defineCommand } from 'citty';
import { commonArgs, jsonArg, parseCount, tenantArg } from '../args.ts';
import { CliError, UsageError, withUser } from '../errors.ts';
import { print, printJson, printTable } from '../output.ts';

const hubModules = () => import('../hub-modules.ts');
type Modules = Awaited<ReturnType<typeof hubModules>>;

/** `--expires-in-hours` of a one-time link, with the limits of linking.ts. */
function parseHours(raw: string | undefined, modules: Modules): number {
  if (raw === undefined) return modules.DEFAULT_LINK_HOURS;
  return parseCount('expires-in-hours', raw, { min: 1, max: modules.MAX_LINK_HOURS })!;
}

type Hub = Parameters<Parameters<Modules['withHub']>[2]>[0];

/** What the sso services need of the hub a command opened (the CLI runs on the system clock). */
const servicesOf = (modules: Modules, hub: Hub) => ({
  identity: hub.identity,
  audit: hub.audit,
  clock: modules.systemClock,
});

/** `--subject` and `--issuer`, as `sso link` and `sso block` take them. */
const subjectArgs = {
  subject: {
    type: 'string',
    description: "The provider's subject of the person (see sso links or the audit log)",
  },
  issuer: {
    type: 'string',
    valueHint: 'url',
    description: 'With --subject: the issuer (default: sso.oidc.issuer)',
  },
} as const;

/** `--issuer`, else the configured provider's; a usage error when neither exists. */
function issuerOf(modules: Modules, hub: Hub, raw: string | undefined): string {
  const issuer = raw?.trim() || modules.configuredIssuer(hub.config());
  if (!issuer) throw new UsageError('--issuer is needed while server.yaml has no sso section.');
  return issuer;
}

const linksCommand = defineCommand({
  meta: {
    name: 'workspace-hub sso links',
    description: 'List the users linked to the identity provider, with their subject',
  },
  args: { ...tenantArg, ...jsonArg, ...commonArgs },
  async run({ args }) {
    const { withTenant, ssoLinks } = await hubModules();
    await withTenant(args, async ({ hub, store }) => {
      const links = await ssoLinks(store);
      const users = new Map(
        (await hub.identity.users.list(store)).map((user) => [user.id, user.name]),
      );
      if (args.json) return printJson({ links });
      if (links.length === 0) return print('No users are linked to the identity provider.');
      printTable(
        ['USER', 'SUBJECT', 'ISSUER', 'LAST SIGN-IN'],
        links.map((link) => [
          users.get(link.userId) ?? link.userId,
          link.subject,
          link.issuer,
          link.lastSignInAt,
        ]),
      );
    });
  },
});

const linkCommand = defineCommand({
  meta: {
    name: 'workspace-hub sso link',
    description:
      "Link an existing user to the person's identity at the provider: a one-time link to sign in with, or --subject",
  },
  args: {
    user: { type: 'positional', required: true, description: 'Id or name of the user' },
    ...subjectArgs,
    'expires-in-hours': {
      type: 'string',
      valueHint: 'hours',
      description: 'Without --subject: lifetime of the one-time link (default 24, at most 168)',
    },
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const subject = args.subject?.trim() || undefined;
    if (args.issuer !== undefined && subject === undefined)
      throw new UsageError('--issuer goes with --subject.');
    if (args['expires-in-hours'] !== undefined && subject !== undefined)
      throw new UsageError('--expires-in-hours goes with a one-time link, not with --subject.');
    const modules = await hubModules();
    const hours = parseHours(args['expires-in-hours'], modules);
    await modules.withTenant(args, async ({ hub, store, tenantId }) => {
      const linking = modules.createLinkingService(servicesOf(modules, hub));
      const userId = await withUser(hub.identity.users, store, args.user, async (id) => id);
      if (subject !== undefined) {
        const issuer = issuerOf(modules, hub, args.issuer);
        const linked = await linking.link(store, userId, { issuer, subject });
        const link = modules.toLinkRecord(linked.link);
        if (args.json) return printJson({ link });
        return print(
          linked.created
            ? `Linked "${args.user}" to subject ${link.subject} of ${link.issuer}.`
            : `"${args.user}" is linked to subject ${link.subject} of ${link.issuer} already.`,
        );
      }
      const issued = await linking.issueCode(store, userId, hours);
      const url = modules.linkCodeUrl(hub.config().server, tenantId, issued.code);
      if (args.json) return printJson({ userId, url, expiresAt: issued.expiresAt });
      print(
        `One-time link for "${issued.user.name}", valid until ${issued.expiresAt}:`,
        `  ${url}`,
        'Give it to the person: once they sign in with it, their company sign-in opens this account.',
      );
    });
  },
});

const unlinkCommand = defineCommand({
  meta: {
    name: 'workspace-hub sso unlink',
    description:
      'Unlink a user from the identity provider (the account stays; the next sign-in makes a new one)',
  },
  args: {
    user: { type: 'positional', required: true, description: 'Id or name of the user' },
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const modules = await hubModules();
    await modules.withTenant(args, async ({ hub, store }) => {
      const userId = await withUser(hub.identity.users, store, args.user, async (id) => id);
      const linking = modules.createLinkingService(servicesOf(modules, hub));
      if (!(await linking.unlink(store, userId)))
        throw new CliError(`User "${args.user}" is not linked to the identity provider.`);
      if (args.json) return printJson({ unlinked: userId });
      print(`Unlinked "${args.user}" from the identity provider.`);
    });
  },
});

const blockCommand = defineCommand({
  meta: {
    name: 'workspace-hub sso block',
    description:
      "Keep a person out although the identity provider admits them: their sign-ins are refused, a linked user's tokens revoked",
  },
  args: {
    user: {
      type: 'positional',
      required: false,
      description: 'Id or name of a user linked to the identity provider',
    },
    ...subjectArgs,
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const subject = args.subject?.trim() || undefined;
    if ((args.user === undefined) === (subject === undefined))
      throw new UsageError('Name a linked user, or a person with --subject (not both).');
    if (args.issuer !== undefined && subject === undefined)
      throw new UsageError('--issuer goes with --subject.');
    const modules = await hubModules();
    await modules.withTenant(args, async ({ hub, store }) => {
      const target =
        subject !== undefined
          ? { subject, issuer: issuerOf(modules, hub, args.issuer) }
          : { userId: await withUser(hub.identity.users, store, args.user!, async (id) => id) };
      const blocks = modules.createBlocksService(servicesOf(modules, hub));
      const record = modules.toBlockRecord(await blocks.block(store, target));
      if (args.json) return printJson({ block: record });
      print(
        `Blocked ${record.name ? `"${record.name}" ` : ''}(subject ${record.subject}) from signing in (block ${record.id}).`,
        ...(record.name
          ? ['Their tokens are revoked; the account stays (user delete removes it).']
          : []),
      );
    });
  },
});

const blocksCommand = defineCommand({
  meta: { name: 'workspace-hub sso blocks', description: 'List the blocked people' },
  args: { ...tenantArg, ...jsonArg, ...commonArgs },
  async run({ args }) {
    const modules = await hubModules();
    await modules.withTenant(args, async ({ hub, store }) => {
      const records = (await modules.createBlocksService(servicesOf(modules, hub)).list(store)).map(
        modules.toBlockRecord,
      );
      if (args.json) return printJson({ blocks: records });
      if (records.length === 0) return print('Nobody is blocked.');
      printTable(
        ['ID', 'NAME', 'SUBJECT', 'ISSUER', 'SINCE'],
        records.map((b) => [b.id, b.name || '-', b.subject, b.issuer, b.createdAt]),
      );
    });
  },
});

const unblockCommand = defineCommand({
  meta: {
    name: 'workspace-hub sso unblock',
    description: 'Lift a block: the person may sign in again',
  },
  args: {
    block: {
      type: 'positional',
      required: true,
      description: 'The block: its id, the subject, or the name it shows (see sso blocks)',
    },
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const modules = await hubModules();
    await modules.withTenant(args, async ({ hub, store }) => {
      const blocks = modules.createBlocksService(servicesOf(modules, hub));
      const all = await blocks.list(store);
      const key = args.block.trim();
      const found = [
        all.filter((b) => b.id === key),
        all.filter((b) => b.subject === key),
        all.filter((b) => b.name !== '' && b.name === key),
      ].find((matches) => matches.length > 0);
      if (!found) throw new CliError(`No block found for ${key} (see sso blocks).`);
      if (found.length > 1)
        throw new CliError(
          `${found.length} blocks match ${key}; name one by its id: ${found.map((b) => b.id).join(', ')}.`,
        );
      const block = found[0]!;
      if (!(await blocks.unblock(store, block.id)))
        throw new CliError(`No block found for ${key} (see sso blocks).`);
      if (args.json) return printJson({ unblocked: modules.toBlockRecord(block) });
      print(
        `Lifted the block of ${block.name ? `"${block.name}" ` : ''}(subject ${block.subject}).`,
      );
    });
  },
});

/** The `sso` command group. */
export const ssoCommand = defineCommand({
  meta: {
    name: 'workspace-hub sso',
    description: 'Single sign-on: linked users, linking an existing user, blocked people',
  },
  subCommands: {
    links: linksCommand,
    link: linkCommand,
    unlink: unlinkCommand,
    block: blockCommand,
    blocks: blocksCommand,
    unblock: unblockCommand,
  },
});
