/** `workspace-hub user …`: create, list, show, update and delete accounts, plus `user token …`. */
import { defineCommand } from 'citty';
import { commonArgs, jsonArg, tenantArg } from '../args.ts';
import { UsageError, withUser } from '../errors.ts';
import {
  noAccessWarning,
  print,
  printJson,
  printTable,
  secretLines,
  userBlock,
  userRow,
  USER_COLUMNS,
  warn,
} from '../output.ts';
import { readUserInput, userFieldArgs } from './user-flags.ts';
import type { RunResultsConfig } from '../hub-modules.ts';

const hubModules = () => import('../hub-modules.ts');

const userIdArg = {
  'user-id': {
    type: 'positional',
    required: true,
    description: 'Id or name of the user (an exact id wins)',
    valueHint: 'user',
  },
} as const;

const createCommand = defineCommand({
  meta: {
    name: 'workspace-hub user create',
    description: 'Create a user and an API token named after them (the secret is shown once)',
  },
  args: {
    name: { type: 'string', required: true, description: 'User name (unique, case-insensitive)' },
    role: {
      type: 'enum',
      options: ['user', 'admin'],
      default: 'user',
      description: 'Role of the account',
    },
    ...userFieldArgs,
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args, rawArgs }) {
    const input = readUserInput(rawArgs, args);
    const { withTenant, toUserRecord, toTokenRecord } = await hubModules();
    await withTenant(args, async ({ hub, store, tenantId }) => {
      // The account and its first token land together or not at all, as with POST /admin/users.
      const { user, token, secret } = await store.transaction(async (tx) => {
        const user = await hub.identity.users.create(tx, {
          ...input,
          name: args.name,
          role: args.role,
        });
        return { user, ...(await hub.identity.tokens.issue(tx, user, user.name)) };
      });
      const record = toUserRecord(user);
      if (args.json) printJson({ user: record, token: toTokenRecord(token), secret });
      else
        print(
          `Created user "${user.name}" (${user.id}) with role ${user.role}.`,
          ...userBlock(record),
          '',
          `Created API token "${token.name}" (${token.id}) for user "${user.name}".`,
          `Token prefix: ${token.tokenPrefix}`,
          ...secretLines(secret),
        );
      warn(noAccessWarning(record, tenantId));
    });
  },
});

const listCommand = defineCommand({
  meta: {
    name: 'workspace-hub user list',
    description:
      'List user accounts as a table (full records with --json or "user show"), with warnings for access-list ids that no longer exist',
  },
  args: { ...tenantArg, ...jsonArg, ...commonArgs },
  async run({ args }) {
    const { withTenant, listUsers } = await hubModules();
    await withTenant(args, async ({ hub, store }) => {
      // The list GET /admin/users answers, with who signs in through single sign-on.
      const users = await listUsers(hub.identity, store);
      if (args.json) return printJson({ users });
      if (users.length === 0) return print('No users found.');
      printTable(
        [...USER_COLUMNS, 'SSO'],
        users.map((user) => [...userRow(user), user.identityProvider ? 'linked' : '-']),
      );
      for (const user of users)
        for (const warning of user.warnings)
          print(`warning: ${user.name} (${user.id}): ${warning}`);
    });
  },
});

const showCommand = defineCommand({
  meta: {
    name: 'workspace-hub user show',
    description: 'Show one user account, with its stored run results against their limits',
  },
  args: { ...userIdArg, ...tenantArg, ...jsonArg, ...commonArgs },
  async run({ args }) {
    const id = args['user-id'];
    const { withTenant, toUserRecord, runResultUsage } = await hubModules();
    await withTenant(args, async ({ hub, store }) => {
      const row = await withUser(hub.identity.users, store, id, (userId) =>
        hub.identity.users.get(store, userId),
      );
      const limits = hub.config()['runResults'] as RunResultsConfig;
      const usage = await runResultUsage(store, row.id, limits);
      if (args.json) return printJson({ ...toUserRecord(row), runResultUsage: usage });
      const warnings = await hub.identity.users.warnings(store, [row]);
      print(...userBlock(toUserRecord(row), warnings.get(row.id), usage));
    });
  },
});

const updateCommand = defineCommand({
  meta: {
    name: 'workspace-hub user update',
    description: 'Change a user: only the flags given change; a list flag replaces the whole list',
  },
  args: {
    ...userIdArg,
    name: { type: 'string', description: 'New user name' },
    role: {
      type: 'enum',
      options: ['user', 'admin'],
      description: 'New role (admin clears the entity access lists)',
    },
    ...userFieldArgs,
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args, rawArgs }) {
    const id = args['user-id'];
    const input = readUserInput(rawArgs, args);
    if (Object.keys(input).length === 0)
      throw new UsageError(
        'Nothing to update: give at least one flag, e.g. --name or --role (see --help).',
      );
    const { withTenant, toUserRecord } = await hubModules();
    await withTenant(args, async ({ hub, store }) => {
      const row = await withUser(hub.identity.users, store, id, (userId) =>
        hub.identity.users.update(store, userId, input),
      );
      if (args.json) return printJson(toUserRecord(row));
      print(`Updated user "${row.name}" (${row.id}).`, ...userBlock(toUserRecord(row)));
    });
  },
});

const deleteCommand = defineCommand({
  meta: {
    name: 'workspace-hub user delete',
    description: 'Delete a user and all of their API tokens',
  },
  args: { ...userIdArg, ...tenantArg, ...jsonArg, ...commonArgs },
  async run({ args }) {
    const id = args['user-id'];
    const { withTenant, toUserRecord } = await hubModules();
    await withTenant(args, async ({ hub, store }) => {
      const row = await withUser(hub.identity.users, store, id, (userId) =>
        hub.identity.users.delete(store, userId),
      );
      if (args.json) return printJson({ user: toUserRecord(row) });
      print(`Deleted user "${row.name}" (${row.id}).`);
    });
  },
});

/** The `user` command group. */
export const userCommand = defineCommand({
  meta: { name: 'workspace-hub user', description: 'Manage user accounts and their API tokens' },
  subCommands: {
    create: createCommand,
    list: listCommand,
    show: showCommand,
    update: updateCommand,
    delete: deleteCommand,
    token: () => import('./token.ts').then((m) => m.tokenCommand),
    invite: () => import('./invite.ts').then((m) => m.inviteCommand),
  },
});
