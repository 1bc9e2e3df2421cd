/** `workspace-hub history …`: purge a record's history on the server's machine. */
import { defineCommand } from 'citty';
import { commonArgs, jsonArg, tenantArg } from '../args.ts';
import { CliError, UsageError } from '../errors.ts';
import { print, printJson } from '../output.ts';
import type { HistoryKind } from '../hub-modules.ts';

const hubModules = () => import('../hub-modules.ts');

const purgeCommand = defineCommand({
  meta: {
    name: 'workspace-hub history purge',
    description:
      'Remove every revision of one record (for a secret that leaked into its history): audit ' +
      'events stay without the content, a deleted record leaves the trash for good, the live ' +
      'record is left as it is',
  },
  args: {
    kind: {
      type: 'positional',
      required: true,
      valueHint: 'kind',
      description:
        'What the record is: a kind that keeps history (request, document, folder, collection, …)',
    },
    id: { type: 'positional', required: true, valueHint: 'id', description: "The record's id" },
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const kind = args.kind.trim();
    const { withTenant, purgeRecordHistory, HISTORY_KIND_NAMES } = await hubModules();
    // The registry's names, checked before any database is opened.
    if (!(HISTORY_KIND_NAMES as readonly string[]).includes(kind))
      throw new UsageError(
        `<kind> must be one of ${HISTORY_KIND_NAMES.join(', ')}; got "${args.kind}".`,
      );
    const id = args.id.trim();
    if (!id) throw new UsageError('<id> needs the id of a record.');
    const { purged } = await withTenant(args, async ({ hub, store }) => {
      try {
        return await purgeRecordHistory(store, hub, kind as HistoryKind, id);
      } catch (error) {
        if (error instanceof Error && error.name === 'HttpError')
          throw new CliError(`No ${kind} with id ${id} and no history of one.`);
        throw error;
      }
    });
    if (args.json) return printJson({ kind, id, purged });
    print(`Purged ${purged} revision(s) of ${kind} ${id}.`);
  },
});

/** The `history` command group. */
export const historyCommand = defineCommand({
  meta: { name: 'workspace-hub history', description: "Manage records' history" },
  subCommands: { purge: purgeCommand },
});
