/**
 * The `console` section: whether the hub serves its web console at `/console`, and how long a
 * console session lasts. Read at every request, so a reload applies it at once (sessions already
 * open are judged by the new numbers on their next page).
 */
import { z } from 'zod';

/** Minutes a session may sit unused before it ends. @default 30 */
export const DEFAULT_IDLE_MINUTES = 30;
/** Hours a session lasts at most, however busy. @default 12 */
export const DEFAULT_ABSOLUTE_HOURS = 12;

export const consoleSchema = z
  .strictObject({
    /** Serve `/console`; off: every console path is 404. @default true */
    enabled: z.boolean().default(true),
    /** Minutes without a page before the session ends (1 to 1440). */
    idleMinutes: z.coerce.number().int().min(1).max(1440).default(DEFAULT_IDLE_MINUTES),
    /** Hours from sign-in after which the session ends (1 to 720). */
    absoluteHours: z.coerce.number().int().min(1).max(720).default(DEFAULT_ABSOLUTE_HOURS),
  })
  .default({
    enabled: true,
    idleMinutes: DEFAULT_IDLE_MINUTES,
    absoluteHours: DEFAULT_ABSOLUTE_HOURS,
  });

export type ConsoleConfig = z.output<typeof consoleSchema>;
