/**
 * The history page's diff model (plugins/console/diff.ts): records compared field by field, a
 * string line by line and anything else as pretty JSON, the changed words of a line changed in
 * place, unchanged runs folded to three lines beside a change, a record compared with nothing,
 * and two texts too different to compare shown as replaced.
 */
import { describe, expect, it } from 'vitest';
import { diffRecords, diffText, type Block } from '../../plugins/console/diff.ts';

/** A block's lines as text, changed pieces in brackets. */
const shown = (block: Block) => {
  const line = (l: { no: number; pieces: { text: string; changed: boolean }[] }) =>
    `${l.no}:${l.pieces.map((p) => (p.changed ? `[${p.text}]` : p.text)).join('')}`;
  if (block.kind === 'fold') return `fold ${block.count}`;
  if (block.kind === 'same') return block.lines.map(({ old }) => `= ${line(old)}`).join('\n');
  return [...block.old.map((l) => `- ${line(l)}`), ...block.new.map((l) => `+ ${line(l)}`)].join(
    '\n',
  );
};

describe('the console diff of two record versions', () => {
  it('compares field by field: strings by line, the rest as pretty JSON, equal fields listed apart', () => {
    const diff = diffRecords(
      { name: 'Ping', url: 'https://a.test/x', headers: [{ key: 'A', value: '1' }], body: '' },
      { name: 'Ping', url: 'https://a.test/y', headers: [{ key: 'A', value: '2' }], body: '' },
    );
    expect(diff.same).toEqual(['name', 'body']);
    expect(diff.changed.map((field) => field.field)).toEqual(['url', 'headers']);
    expect(diff.changed[0]!.blocks.map(shown)).toEqual([
      '- 1:https://a.test/[x]\n+ 1:https://a.test/[y]',
    ]);
    expect(diff.changed[1]!.blocks.map(shown).join('\n')).toContain(
      '- 4:    "value": "[1]"\n+ 4:    "value": "[2]"',
    );
  });

  it('keeps three unchanged lines beside a change and folds the rest', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    const after = before.replace('line 10', 'line ten');
    const { blocks } = diffText('content', before, after);
    expect(blocks.map((block) => block.kind)).toEqual(['fold', 'same', 'change', 'same', 'fold']);
    expect(blocks[0]).toEqual({ kind: 'fold', count: 6 });
    expect(shown(blocks[1]!)).toBe('= 7:line 7\n= 8:line 8\n= 9:line 9');
    expect(shown(blocks[2]!)).toBe('- 10:line [10]\n+ 10:line [ten]');
    expect(blocks[4]).toEqual({ kind: 'fold', count: 7 });
  });

  it('marks lines only one side has as wholly changed, numbered on their own side', () => {
    const { blocks } = diffText('content', 'a\nb\nc', 'a\nB\nextra\nc');
    expect(blocks.map(shown)).toEqual(['= 1:a', '- 2:[b]\n+ 2:[B]\n+ 3:[extra]', '= 3:c']);
  });

  it('compares a first version with nothing: every field added', () => {
    const diff = diffRecords(null, { name: 'New', count: 2 });
    expect(diff.same).toEqual([]);
    expect(diff.changed.map((field) => field.blocks.map(shown))).toEqual([
      ['+ 1:[New]'],
      ['+ 1:[2]'],
    ]);
  });

  it('shows two texts too different to compare within the budget as every line replaced', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `old ${i}`).join('\n');
    const after = Array.from({ length: 3000 }, (_, i) => `new ${i}`).join('\n');
    const field = diffText('content', before, after);
    expect(field.whole).toBe(true);
    expect(field.blocks).toHaveLength(1);
    const [block] = field.blocks;
    expect(block!.kind === 'change' && [block.old.length, block.new.length]).toEqual([3000, 3000]);
  });
});
