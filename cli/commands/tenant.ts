/** `workspace-hub tenant …`: tenants are managed from the command line only. */
import { defineCommand } from 'citty';
import { commonArgs, jsonArg } from '../args.ts';
const hubModules = () => import('../hub-modules.ts');
import { print, printJson, printTable, tenantBlock, tenantRow, TENANT_COLUMNS } from '../output.ts';

const tenantIdArg = {
  'tenant-id': {
    type: 'positional',
    required: true,
    description: 'Tenant id: letters, digits, underscores and hyphens, at most 64',
  },
} as const;

const listCommand = defineCommand({
  meta: {
    name: 'workspace-hub tenant list',
    description: 'List tenants (the reserved __default__ tenant always exists)',
  },
  args: { ...jsonArg, ...commonArgs },
  async run({ args }) {
    const { loadCliConfig, toTenantRecord, withHub } = await hubModules();
    const loaded = await loadCliConfig(args);
    await withHub(loaded, args.verbose, async (hub) => {
      const rows = await hub.identity.tenants.list();
      if (args.json) return printJson({ tenants: rows.map(toTenantRecord) });
      if (rows.length === 0) return print('No tenants found.');
      printTable(TENANT_COLUMNS, rows.map(tenantRow));
    });
  },
});

const createCommand = defineCommand({
  meta: {
    name: 'workspace-hub tenant create',
    description: 'Create a tenant (needs multitenancy.enabled)',
  },
  args: {
    ...tenantIdArg,
    name: {
      type: 'string',
      required: true,
      description: 'Display name of the tenant (its hub name)',
    },
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const { CLI_CONTEXT, loadCliConfig, requireMultitenancy, toTenantRecord, withHub } =
      await hubModules();
    const loaded = await loadCliConfig(args);
    requireMultitenancy(loaded.config);
    await withHub(loaded, args.verbose, async (hub) => {
      const tenant = await hub.identity.tenants.create(args['tenant-id'], args.name, CLI_CONTEXT);
      if (args.json) return printJson({ tenant: toTenantRecord(tenant) });
      print(`Created tenant "${tenant.name}" (${tenant.id}).`, ...tenantBlock(tenant));
    });
  },
});

const deleteCommand = defineCommand({
  meta: {
    name: 'workspace-hub tenant delete',
    description: 'Delete a tenant and every row it owns (needs multitenancy.enabled)',
  },
  args: { ...tenantIdArg, ...jsonArg, ...commonArgs },
  async run({ args }) {
    const { CLI_CONTEXT, loadCliConfig, requireMultitenancy, toTenantRecord, withHub } =
      await hubModules();
    const loaded = await loadCliConfig(args);
    requireMultitenancy(loaded.config);
    await withHub(loaded, args.verbose, async (hub) => {
      const tenant = await hub.identity.tenants.delete(args['tenant-id'], CLI_CONTEXT);
      if (args.json) return printJson({ tenant: toTenantRecord(tenant) });
      print(`Deleted tenant "${tenant.name}" (${tenant.id}).`);
    });
  },
});

/** The `tenant` command group. */
export const tenantCommand = defineCommand({
  meta: {
    name: 'workspace-hub tenant',
    description: 'Manage tenants (separate hubs sharing one server)',
  },
  subCommands: { list: listCommand, create: createCommand, delete: deleteCommand },
});
