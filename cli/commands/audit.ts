/** `workspace-hub audit …`: read the audit log on the server's machine, or export it for a SIEM. */
import { resolve } from 'node:path';
import { defineCommand } from 'citty';
import { parseIsoTime } from '../../kernel/clock.ts';
import { escapeJsonText } from '../../kernel/text.ts';
import { commonArgs, jsonArg, parseCount, tenantArg } from '../args.ts';
import { UsageError, withUser } from '../errors.ts';
import { createNewFile } from '../new-file.ts';
import { print, printJson, printTable } from '../output.ts';

const hubModules = () => import('../hub-modules.ts');

/** The most events `audit list` prints at once (`audit export` has no limit), and its default. */
const MAX_LIST = 1000;
const DEFAULT_LIST = 50;
/** Rows read per query while exporting. */
const EXPORT_PAGE = 500;

const sinceArg = {
  since: {
    type: 'string',
    valueHint: 'ISO',
    description: 'Only events at or after this time (ISO 8601 date or date-time with a zone)',
  },
} as const;

function parseSince(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const since = parseIsoTime(raw.trim());
  if (since === null)
    throw new UsageError(
      `--since must be an ISO 8601 date or date-time with a zone (e.g. 2026-01-02T03:04:05Z), got "${raw}".`,
    );
  return since;
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_LIST;
  return parseCount('limit', raw, { min: 1, max: MAX_LIST })!;
}

const listCommand = defineCommand({
  meta: {
    name: 'workspace-hub audit list',
    description: 'Show audit events, newest first',
  },
  args: {
    ...sinceArg,
    action: { type: 'string', description: 'Only this action, e.g. user.created' },
    user: {
      type: 'string',
      valueHint: 'user',
      description: 'Only events by this user (id or name)',
    },
    limit: {
      type: 'string',
      valueHint: 'N',
      description: `At most N events (default ${DEFAULT_LIST}, at most ${MAX_LIST})`,
    },
    before: {
      type: 'string',
      valueHint: 'event-id',
      description: 'Only events older than this one: the next page, as a full page says',
    },
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const since = parseSince(args.since);
    const limit = parseLimit(args.limit);
    const action = args.action?.trim() || undefined;
    const { withTenant, auditPage, keptSince, toAuditEventRecord } = await hubModules();
    await withTenant(args, async ({ hub, store, tenantId }) => {
      const kept = keptSince(hub.config().history.auditKeepDays, new Date());
      const actorId =
        args.user === undefined
          ? undefined
          : await withUser(hub.identity.users, store, args.user, async (id) => id);
      const before = args.before?.trim() || undefined;
      const { rows, nextCursor } = await auditPage(store, {
        since,
        action,
        actorId,
        limit,
        keptSince: kept,
        ...(before ? { cursor: { id: before } } : {}),
      });
      const events = rows.map((row) => toAuditEventRecord(row, tenantId));
      // A full page with more behind it says so, and how to read on: the last event's id.
      const next = nextCursor ? events.at(-1)?.id : undefined;
      if (args.json) return printJson({ events, ...(next ? { nextBefore: next } : {}) });
      if (events.length === 0) return print('No audit events found.');
      printTable(
        ['AT', 'ACTION', 'ACTOR', 'TARGET', 'IP'],
        events.map((event) => [
          event.at,
          event.action,
          event.actor?.name ?? `(${String(event.details['via'] ?? 'system')})`,
          `${event.target.kind} ${event.target.name || event.target.id}`,
          event.ip ?? '-',
        ]),
      );
      if (next)
        print(
          '',
          `More events are older than these ${events.length}: add --before ${next} to this command for the next ones (or raise --limit, at most ${MAX_LIST}; "audit export" writes them all).`,
        );
    });
  },
});

const exportCommand = defineCommand({
  meta: {
    name: 'workspace-hub audit export',
    description: 'Write audit events as JSON lines (one event per line, newest first), mode 0600',
  },
  args: {
    out: {
      type: 'string',
      required: true,
      valueHint: 'file.jsonl',
      description: 'File to create (never overwritten)',
    },
    ...sinceArg,
    ...tenantArg,
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    if (!args.out?.trim()) throw new UsageError('--out needs a file path.');
    const since = parseSince(args.since);
    const file = resolve(args.out);
    const { withTenant, auditPage, keptSince, toAuditEventRecord } = await hubModules();
    await withTenant(args, async ({ hub, store, tenantId }) => {
      const kept = keptSince(hub.config().history.auditKeepDays, new Date());
      // Owner-only: the log names people, addresses and what they did.
      const out = await createNewFile(file);
      let count = 0;
      try {
        let cursor: { createdAt: string; id: string } | undefined;
        for (;;) {
          const page = await auditPage(store, {
            since,
            cursor,
            limit: EXPORT_PAGE,
            keptSince: kept,
          });
          // Escaped as the CLI prints JSON: a SIEM or a `cat` of the file meets no raw control.
          const text = page.rows.map(
            (row) => `${escapeJsonText(JSON.stringify(toAuditEventRecord(row, tenantId)))}\n`,
          );
          if (text.length > 0) await out.write(text.join(''));
          count += page.rows.length;
          const last = page.rows.at(-1);
          if (!page.nextCursor || !last) break;
          cursor = { createdAt: last.at, id: last.id };
        }
        await out.end();
      } catch (error) {
        await out.discard();
        throw error;
      }
      if (args.json) return printJson({ file, count });
      print(`Exported ${count} audit event(s) to ${file}.`);
    });
  },
});

/** The `audit` command group. */
export const auditCommand = defineCommand({
  meta: { name: 'workspace-hub audit', description: 'Read or export the audit log' },
  subCommands: { list: listCommand, export: exportCommand },
});
