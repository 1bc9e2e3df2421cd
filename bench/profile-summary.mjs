#!/usr/bin/env node
/**
 * A CPU profile (`.cpuprofile`, as `node --cpu-prof` or `bench/console.mjs --profile` write it)
 * summed up in the terminal: the functions with the most time of their own, and the most time
 * including what they call, each with its file and line.
 *
 *   node bench/profile-summary.mjs <file.cpuprofile> [--top 25]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { printUsageAndExit } from './support.mjs';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help || positionals.length !== 1) printUsageAndExit(import.meta.url);
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const top = Number(args.top);

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id);
// Each sample's time: the gap to the next sample.
const selfMs = new Map();
profile.samples.forEach((id, i) => {
  const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
  selfMs.set(id, (selfMs.get(id) ?? 0) + ms);
});
const label = ({ callFrame: f }) => {
  const file = f.url.replace(/^file:\/\/.*?\/(node_modules|kernel|plugins|bench)\//, '$1/');
  return `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
};
const self = new Map();
const total = new Map();
for (const [id, ms] of selfMs) {
  const name = label(nodes.get(id));
  self.set(name, (self.get(name) ?? 0) + ms);
  // Inclusive time: once per function on the sample's stack (recursion counted once).
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const frame = label(nodes.get(at));
    if (seen.has(frame)) continue;
    seen.add(frame);
    total.set(frame, (total.get(frame) ?? 0) + ms);
  }
}
const all = [...selfMs.values()].reduce((a, b) => a + b, 0);
const print = (title, map) => {
  console.log(`\n${title} (of ${all.toFixed(0)} ms sampled)`);
  for (const [name, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(
      `${ms.toFixed(1).padStart(9)} ms ${((ms / all) * 100).toFixed(1).padStart(5)} %  ${name}`,
    );
};
print('Self time', self);
print('Total time', total);
