#!/usr/bin/env node
// The installed `workspace-hub` command: TypeScript runs through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

// citty colours its usage text unless told not to; colour codes only belong on a terminal.
if (!process.stdout.isTTY && process.env.NO_COLOR === undefined) process.env.NO_COLOR = '1';
register();
const { main } = await import('./main.ts');
await main(process.argv.slice(2));
