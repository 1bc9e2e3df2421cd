/**
 * Live servers and live pages: a name plus the desktop's configuration object (their records are
 * in live-records.ts). `PUT` replaces the whole configuration.
 */
import type { z } from 'zod';
import { created } from '../attribution.ts';
import { livePageConfig, liveServerConfig } from '../live-records.ts';
import { compareNames } from '../ordering.ts';
import { nameSchema } from '../schemas.ts';
import type { LiveRow } from '../tables.ts';
import { defineBehaviour } from './top-level.ts';

/** The two live kinds differ only in their configuration schema. */
function liveBehaviour(config: typeof liveServerConfig | typeof livePageConfig) {
  const body = config.extend({ name: nameSchema });
  type Body = z.output<typeof body>;
  const split = ({ name, ...rest }: Body) => ({ name, payload: rest as Record<string, unknown> });
  return defineBehaviour<LiveRow, Body, Body>({
    compare: compareNames,
    createBody: body,
    updateBody: body,
    async create(input, { user, now, id }) {
      return { id, ...split(input), deletionLocked: false, ...created(user, now) };
    },
    async update(_row, input) {
      return split(input);
    },
  });
}

export const liveServersBehaviour = liveBehaviour(liveServerConfig);
export const livePagesBehaviour = liveBehaviour(livePageConfig);
