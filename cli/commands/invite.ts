/** `workspace-hub user invite …`: invite a new or existing user, list and revoke invitations. */
import { defineCommand } from 'citty';
import type { TenantContext } from '../hub-modules.ts';
import type { InvitesConfig, IssuedInvitation } from '../../plugins/invites/index.ts';
import { commonArgs, jsonArg, parseCount, tenantArg } from '../args.ts';
import { CliError, UsageError, withUser } from '../errors.ts';
import {
  INVITATION_COLUMNS,
  invitationRow,
  noAccessWarning,
  print,
  printJson,
  printTable,
  userBlock,
  warn,
} from '../output.ts';
import { readUserInput, userFieldArgs } from './user-flags.ts';

/**
 * The kernel and the invites plugin's face, loaded when a command runs (never for --help). The
 * service is the one the plugin's routes use, so the CLI and the API issue the same invitations.
 */
async function inviteModules() {
  const [hub, invites, clock] = await Promise.all([
    import('../hub-modules.ts'),
    import('../../plugins/invites/index.ts'),
    import('../../kernel/clock.ts'),
  ]);
  // The CLI never moves time, so the system clock is the hub's.
  const invitesOf = (ctx: TenantContext) =>
    invites.createInvitesService({
      identity: ctx.hub.identity,
      clock: clock.systemClock,
      audit: ctx.hub.audit,
    });
  return { ...hub, ...invites, invitesOf };
}
type InviteModules = Awaited<ReturnType<typeof inviteModules>>;

function readHours(
  raw: string | undefined,
  { MAX_EXPIRES_IN_HOURS }: InviteModules,
): number | undefined {
  if (raw === undefined) return undefined;
  return parseCount('expires-in-hours', raw, { min: 1, max: MAX_EXPIRES_IN_HOURS })!;
}

function readBaseUrl(raw: string | undefined, { parseBaseUrl }: InviteModules): string | undefined {
  if (raw === undefined) return undefined;
  try {
    return parseBaseUrl(raw);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

const createCommand = defineCommand({
  meta: {
    name: 'workspace-hub user invite create',
    description:
      'Invite a new user (same flags as "user create") or, with --user, an existing one; prints the link and secret once',
  },
  args: {
    user: {
      type: 'string',
      valueHint: 'user',
      description: 'Re-invite this existing user (id or name) instead of creating one',
    },
    name: { type: 'string', description: 'User name of the new account (required without --user)' },
    role: {
      type: 'enum',
      options: ['user', 'admin'],
      description: 'Role of the new account (default user)',
    },
    ...userFieldArgs,
    'expires-in-hours': {
      type: 'string',
      valueHint: 'hours',
      description:
        'Lifetime of the invitation in whole hours, 1 up to a year (default: invites.expiresInHours, 24)',
    },
    'base-url': {
      type: 'string',
      valueHint: 'url',
      description:
        'Public http(s) address of the hub for the link (default: server.publicUrl, else server.host and server.port)',
    },
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args, rawArgs }) {
    const input = readUserInput(rawArgs, args);
    if (args.user !== undefined && Object.keys(input).length > 0)
      throw new UsageError(
        '--user re-invites an existing account: account flags such as --name cannot be combined with it.',
      );
    if (args.user === undefined && !args.name)
      throw new UsageError(
        'Give --name for a new user, or --user <id or name> to re-invite an existing one.',
      );
    const modules = await inviteModules();
    const { withTenant, invitesOf, toUserRecord, toInvitationRecord, joinLink, publicBaseUrl } =
      modules;
    const hours = readHours(args['expires-in-hours'], modules);
    const baseFlag = readBaseUrl(args['base-url'], modules);
    await withTenant(args, async (ctx) => {
      const config = ctx.hub.config();
      const lifetime = hours ?? (config['invites'] as InvitesConfig).expiresInHours;
      const invites = invitesOf(ctx);
      const issued: IssuedInvitation =
        args.user !== undefined
          ? await withUser(ctx.hub.identity.users, ctx.store, args.user, (id) =>
              invites.reissue(ctx.store, id, lifetime),
            )
          : await invites.createInvitedUser(
              ctx.store,
              { ...input, name: args.name!, role: args.role ?? 'user' },
              lifetime,
            );
      const tenant = await ctx.hub.identity.tenants.get(ctx.tenantId);
      const user = toUserRecord(issued.user);
      const invitation = toInvitationRecord(issued.invitation, new Date());
      const link = joinLink({
        baseUrl: baseFlag ?? publicBaseUrl(config.server),
        user,
        expiresAt: invitation.expiresAt,
        secret: issued.secret,
        ...(tenant ? { hubName: tenant.name } : {}),
        tenantId: ctx.tenantId,
      });
      if (args.json) printJson({ user, invitation, secret: issued.secret, link });
      else
        print(
          ...(args.user === undefined
            ? [
                `Created invited user "${user.name}" (${user.id}) with role ${user.role}.`,
                ...userBlock(user),
                '',
              ]
            : []),
          `Created invitation (${invitation.id}) for user "${user.name}" (${user.id}).`,
          `Invitation prefix: ${invitation.codePrefix}`,
          `Expires: ${invitation.expiresAt}`,
          'Store this invitation secret now; it will not be shown again:',
          issued.secret,
          'Invitation link (paste into File → Accept Team Hub Invite):',
          link,
        );
      if (args.user === undefined) warn(noAccessWarning(user, ctx.tenantId));
    });
  },
});

const listCommand = defineCommand({
  meta: {
    name: 'workspace-hub user invite list',
    description: 'List invitations, newest first, with their status',
  },
  args: { ...tenantArg, ...jsonArg, ...commonArgs },
  async run({ args }) {
    const { withTenant, invitesOf, toInvitationRecord } = await inviteModules();
    await withTenant(args, async (ctx) => {
      const rows = await invitesOf(ctx).list(ctx.store);
      const now = new Date();
      if (args.json)
        return printJson({ invitations: rows.map((row) => toInvitationRecord(row, now)) });
      if (rows.length === 0) return print('No invitations found.');
      const names = new Map(
        (await ctx.hub.identity.users.list(ctx.store)).map((user) => [user.id, user.name]),
      );
      printTable(
        INVITATION_COLUMNS,
        rows.map((row) => {
          const record = toInvitationRecord(row, now);
          return invitationRow(record, names.get(record.userId));
        }),
      );
    });
  },
});

const revokeCommand = defineCommand({
  meta: {
    name: 'workspace-hub user invite revoke',
    description: 'Revoke a pending invitation; its link stops working',
  },
  args: {
    'invitation-id': {
      type: 'positional',
      required: true,
      description: 'Id of the invitation (see "user invite list")',
    },
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const id = args['invitation-id'];
    const { withTenant, invitesOf, toInvitationRecord } = await inviteModules();
    await withTenant(args, async (ctx) => {
      const row = await invitesOf(ctx).revoke(ctx.store, id);
      if (!row) throw new CliError(`No pending invitation found with id ${id}.`);
      if (args.json) return printJson({ invitation: toInvitationRecord(row, new Date()) });
      print(`Revoked invitation ${id}.`);
    });
  },
});

/** The `user invite` command group. */
export const inviteCommand = defineCommand({
  meta: { name: 'workspace-hub user invite', description: 'Manage onboarding invitations' },
  subCommands: { create: createCommand, list: listCommand, revoke: revokeCommand },
});
