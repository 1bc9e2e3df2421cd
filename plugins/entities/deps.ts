/** What the route builders need from the plugin context. */
import type { AuditSink } from '../../kernel/audit.ts';
import type { ReadCache } from '../../kernel/cache.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { HistoryConfig } from '../../kernel/config/sections.ts';
import type { EventBus } from '../../kernel/events.ts';
import type { UsageLedger } from './history/usage.ts';

export interface EntityDeps {
  clock: Clock;
  events: EventBus;
  cache: ReadCache;
  /** The audit log (admin lock changes are recorded in their transaction). */
  audit: AuditSink;
  /** The `history` section as it is now (read per change, so a reload applies at once). */
  history: () => HistoryConfig;
  /** This process's view of the history usage (history/usage.ts). */
  usage: UsageLedger;
}
