/**
 * `workspace-hub export --out <file>` and `workspace-hub import <file>`: move a hub between
 * databases (any driver to any driver). The format and the export are in
 * kernel/storage/transfer.ts, the import in transfer-import.ts; what the commands do is in
 * cli/transfer-run.ts, loaded only when one runs.
 */
import { defineCommand } from 'citty';
import { commonArgs, jsonArg } from '../args.ts';

export const exportCommand = defineCommand({
  meta: {
    name: 'workspace-hub export',
    description: 'Write every table of the hub to one JSON file (to import into another database)',
  },
  args: {
    out: {
      type: 'string',
      valueHint: 'file',
      description: 'File to write (must not exist yet); readable by its owner only',
      required: true,
    },
    tenant: {
      type: 'string',
      valueHint: 'id',
      description: 'Export only this tenant (default: every tenant and the hub state)',
    },
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const { runExport } = await import('../transfer-run.ts');
    return runExport(args);
  },
});

export const importCommand = defineCommand({
  meta: {
    name: 'workspace-hub import',
    description:
      'Load an export into a new database that "workspace-hub migrate" has just prepared',
  },
  args: {
    file: {
      type: 'positional',
      description: 'The file "workspace-hub export" wrote',
      required: true,
    },
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const { runImport } = await import('../transfer-run.ts');
    return runImport(args);
  },
});
