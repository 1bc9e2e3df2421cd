/**
 * What changed between two versions of a record, field by field, for the history page's diff. A
 * field's value is compared as text: a string as it is (a document's Markdown, a request's body,
 * line by line), anything else as pretty JSON. jsdiff (`diff`) finds the changed lines and, in a
 * line changed in place, the changed words. Runs of unchanged lines far from a change fold into a
 * count. The result is plain data; diff-view.tsx renders it (escaped, like all JSX text).
 */
import { diffLines, diffWordsWithSpace } from 'diff';

/** A piece of a changed line: `changed` pieces are what the other side does not have. */
export interface Piece {
  text: string;
  changed: boolean;
}

/** One line of one side, numbered from 1 within its field's text. */
export interface Line {
  no: number;
  pieces: Piece[];
}

export type Block =
  /** Lines both sides have. */
  | { kind: 'same'; lines: { old: Line; new: Line }[] }
  /** Lines removed (`old`) and added (`new`) at the same place; either may be empty. */
  | { kind: 'change'; old: Line[]; new: Line[] }
  /** Unchanged lines left out, far from any change. */
  | { kind: 'fold'; count: number };

export interface FieldDiff {
  field: string;
  blocks: Block[];
  /** Too different to compare line by line within the budget: every line replaced. */
  whole: boolean;
}

export interface RecordDiff {
  /** The fields that differ, in the record's order. */
  changed: FieldDiff[];
  /** The fields equal on both sides. */
  same: string[];
}

/** Unchanged lines shown around a change. */
export const CONTEXT = 3;
/**
 * Most line edits a field's diff may take before it shows the field as replaced: the page's time
 * budget (two wholly different 3 000-line texts: about 90 ms at 500, half a second at 2 000).
 */
const MAX_EDITS = 500;
/** Lines longer than this are compared whole, not word by word. */
const MAX_WORD_LINE = 2_000;

/** A field's value as the text that is compared; absent is empty. */
export function valueText(value: unknown): string {
  if (value === undefined || value === null) return value === null ? 'null' : '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

const splitLines = (text: string): string[] => {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

const plain = (no: number, text: string): Line => ({ no, pieces: [{ text, changed: false }] });

/** A line changed in place: each side's words, the ones the other side lacks marked. */
function pairWords(oldLine: Line, newLine: Line): void {
  const before = oldLine.pieces[0]!.text;
  const after = newLine.pieces[0]!.text;
  if (before.length > MAX_WORD_LINE || after.length > MAX_WORD_LINE) {
    oldLine.pieces = [{ text: before, changed: true }];
    newLine.pieces = [{ text: after, changed: true }];
    return;
  }
  const parts = diffWordsWithSpace(before, after);
  oldLine.pieces = parts
    .filter((part) => !part.added)
    .map((part) => ({ text: part.value, changed: part.removed }));
  newLine.pieces = parts
    .filter((part) => !part.removed)
    .map((part) => ({ text: part.value, changed: part.added }));
}

/** The blocks of one field's two texts, unchanged runs folded to {@link CONTEXT} lines. */
export function diffText(field: string, before: string, after: string): FieldDiff {
  const changes = diffLines(before, after, { maxEditLength: MAX_EDITS });
  const blocks: Block[] = [];
  let oldNo = 0;
  let newNo = 0;
  const next = (text: string, side: 'old' | 'new') =>
    plain(side === 'old' ? ++oldNo : ++newNo, text);
  if (!changes) {
    const old = splitLines(before).map((text) => next(text, 'old'));
    const added = splitLines(after).map((text) => next(text, 'new'));
    for (const line of [...old, ...added]) line.pieces[0]!.changed = true;
    return { field, blocks: [{ kind: 'change', old, new: added }], whole: true };
  }
  for (const change of changes) {
    const lines = splitLines(change.value);
    const last = blocks[blocks.length - 1];
    if (!change.added && !change.removed) {
      blocks.push({
        kind: 'same',
        lines: lines.map((text) => ({ old: next(text, 'old'), new: next(text, 'new') })),
      });
    } else {
      const block = last?.kind === 'change' ? last : { kind: 'change' as const, old: [], new: [] };
      if (block !== last) blocks.push(block);
      if (change.removed) block.old.push(...lines.map((text) => next(text, 'old')));
      else block.new.push(...lines.map((text) => next(text, 'new')));
    }
  }
  for (const block of blocks) {
    if (block.kind !== 'change') continue;
    for (let i = 0; i < Math.min(block.old.length, block.new.length); i++)
      pairWords(block.old[i]!, block.new[i]!);
    for (const line of unpaired(block)) line.pieces[0]!.changed = true;
  }
  return { field, blocks: fold(blocks), whole: false };
}

/** The lines of a change block with no counterpart on the other side (wholly removed or added). */
function unpaired(block: Extract<Block, { kind: 'change' }>): Line[] {
  const paired = Math.min(block.old.length, block.new.length);
  return [...block.old.slice(paired), ...block.new.slice(paired)];
}

/** Unchanged runs keep {@link CONTEXT} lines next to a change; the rest become a fold. */
function fold(blocks: Block[]): Block[] {
  const out: Block[] = [];
  blocks.forEach((block, index) => {
    if (block.kind !== 'same') return void out.push(block);
    const keepStart = index > 0 ? CONTEXT : 0;
    const keepEnd = index < blocks.length - 1 ? CONTEXT : 0;
    if (block.lines.length <= keepStart + keepEnd + 1) return void out.push(block);
    if (keepStart > 0) out.push({ kind: 'same', lines: block.lines.slice(0, keepStart) });
    out.push({ kind: 'fold', count: block.lines.length - keepStart - keepEnd });
    if (keepEnd > 0) out.push({ kind: 'same', lines: block.lines.slice(-keepEnd) });
  });
  return out;
}

/**
 * Two versions of a record compared field by field, in the newer record's order (then fields only
 * the older has). `before` null: the record as created, compared with nothing.
 */
export function diffRecords(
  before: Readonly<Record<string, unknown>> | null,
  after: Readonly<Record<string, unknown>>,
): RecordDiff {
  const fields = [...new Set([...Object.keys(after), ...Object.keys(before ?? {})])];
  const changed: FieldDiff[] = [];
  const same: string[] = [];
  for (const field of fields) {
    const old = valueText(before?.[field]);
    const now = valueText(after[field]);
    if (old === now) same.push(field);
    else changed.push(diffText(field, old, now));
  }
  return { changed, same };
}
