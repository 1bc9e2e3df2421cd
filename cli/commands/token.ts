/** `workspace-hub user token …`: issue, list and revoke API tokens. */
import { defineCommand } from 'citty';
import { commonArgs, jsonArg, tenantArg } from '../args.ts';
import { CliError, UsageError, withUser } from '../errors.ts';
import { print, printJson, printTable, secretLines, TOKEN_COLUMNS, tokenRow } from '../output.ts';

const hubModules = () => import('../hub-modules.ts');

/**
 * `--expires-in-days`: days (at most `max`, the limit of `expiresInDays` of `POST
 * /admin/users/:id/tokens`), `never` (null), or undefined for the user's default.
 */
function parseDays(raw: string | undefined, max: number): number | null | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim().toLowerCase();
  if (value === 'never') return null;
  const days = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(days) || days < 1 || days > max)
    throw new UsageError(
      `--expires-in-days must be a whole number from 1 to ${max}, or "never", got "${raw}".`,
    );
  return days;
}

const createCommand = defineCommand({
  meta: {
    name: 'workspace-hub user token create',
    description: 'Issue an API token for a user (the secret is shown once)',
  },
  args: {
    user: {
      type: 'string',
      required: true,
      valueHint: 'user',
      description: 'Id or name of the user who will own the token',
    },
    name: {
      type: 'string',
      required: true,
      description: 'Name of the token, e.g. the device it is for',
    },
    'expires-in-days': {
      type: 'string',
      valueHint: 'days|never',
      description:
        'Lifetime of the token (default: sso.tokenTtlDays for a user linked to single sign-on, else never)',
    },
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const { withTenant, toTokenRecord, MAX_TOKEN_DAYS } = await hubModules();
    const days = parseDays(args['expires-in-days'], MAX_TOKEN_DAYS);
    await withTenant(args, async ({ hub, store }) => {
      const { tokens } = hub.identity;
      // The same rule as POST /admin/users/:id/tokens: refuses the system account, and holds the
      // user's row lock so a concurrent deletion cannot leave the new token behind.
      const { user, token, secret } = await withUser(hub.identity.users, store, args.user, (id) =>
        tokens.issueFor(store, id, args.name, days),
      );
      if (args.json) return printJson({ token: toTokenRecord(token), secret });
      print(
        `Created API token "${token.name}" (${token.id}) for user "${user.name}".`,
        `Token prefix: ${token.tokenPrefix}`,
        `Expires: ${token.expiresAt ?? 'never'}`,
        ...secretLines(secret),
      );
    });
  },
});

const listCommand = defineCommand({
  meta: {
    name: 'workspace-hub user token list',
    description: 'List API tokens (never their secrets), newest first',
  },
  args: {
    user: {
      type: 'string',
      valueHint: 'user',
      description: 'Only the tokens of this user (id or name)',
    },
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const { withTenant, toTokenRecord } = await hubModules();
    await withTenant(args, async ({ hub, store }) => {
      const userId =
        args.user === undefined
          ? undefined
          : await withUser(hub.identity.users, store, args.user, async (id) => id);
      const rows = await hub.identity.tokens.list(store, userId);
      if (args.json) return printJson({ tokens: rows.map(toTokenRecord) });
      if (rows.length === 0) return print('No API tokens found.');
      const names = new Map((await hub.identity.users.list(store)).map((u) => [u.id, u.name]));
      printTable(
        TOKEN_COLUMNS,
        rows.map((row) => tokenRow(toTokenRecord(row), names.get(row.userId ?? ''))),
      );
    });
  },
});

const revokeCommand = defineCommand({
  meta: {
    name: 'workspace-hub user token revoke',
    description: 'Revoke an API token; it is refused from then on',
  },
  args: {
    'token-id': {
      type: 'positional',
      required: true,
      description: 'Id of the token (see "user token list")',
    },
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const id = args['token-id'];
    const { withTenant, toTokenRecord } = await hubModules();
    await withTenant(args, async ({ hub, store }) => {
      const row = await hub.identity.tokens.revoke(store, id);
      if (!row) throw new CliError(`No active API token found with id ${id}.`);
      if (args.json) return printJson({ token: toTokenRecord(row) });
      print(`Revoked API token "${row.name}" (${row.id}).`);
    });
  },
});

/** The `user token` command group. */
export const tokenCommand = defineCommand({
  meta: { name: 'workspace-hub user token', description: 'Manage API tokens' },
  subCommands: { create: createCommand, list: listCommand, revoke: revokeCommand },
});
