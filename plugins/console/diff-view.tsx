/**
 * A record diff (diff.ts) as HTML: one table per changed field, side by side (the older version
 * left, the newer right) or unified (removed lines, then added ones, in one column). Removed
 * words are `<del>`, added ones `<ins>`; each changed line says so to screen readers too, so
 * nothing depends on colour. Every text goes through JSX, which escapes it.
 */
import type { FC } from 'hono/jsx';
import type { Block, FieldDiff, Line, RecordDiff } from './diff.ts';
import { Hidden } from './parts.tsx';

export type DiffLayout = 'split' | 'unified';

/** The two sides' names, as the tables' column headers say them. */
export interface DiffSides {
  old: string;
  new: string;
}

/** A line's text, its changed pieces marked for its side. */
const Text: FC<{ line: Line; side: 'old' | 'new' }> = ({ line, side }) => (
  <>
    {line.pieces.map((piece) =>
      !piece.changed ? (
        piece.text
      ) : side === 'old' ? (
        <del>{piece.text}</del>
      ) : (
        <ins>{piece.text}</ins>
      ),
    )}
  </>
);

const REMOVED = 'Removed: ';
const ADDED = 'Added: ';

/** A fold's row: how many unchanged lines are not shown. */
const Fold: FC<{ count: number; span: number }> = ({ count, span }) => (
  <tr class="fold">
    <td colspan={span}>{count === 1 ? '1 unchanged line' : `${count} unchanged lines`}</td>
  </tr>
);

function splitRows(block: Block) {
  if (block.kind === 'fold') return <Fold count={block.count} span={4} />;
  if (block.kind === 'same')
    return block.lines.map(({ old, new: now }) => (
      <tr>
        <td class="no">{old.no}</td>
        <td class="text">
          <Text line={old} side="old" />
        </td>
        <td class="no">{now.no}</td>
        <td class="text">
          <Text line={now} side="new" />
        </td>
      </tr>
    ));
  const rows = Math.max(block.old.length, block.new.length);
  return Array.from({ length: rows }, (_, i) => {
    const old = block.old[i];
    const now = block.new[i];
    return (
      <tr>
        <td class="no">{old?.no}</td>
        <td class={old ? 'text del' : 'text none'}>
          {old ? <Hidden>{REMOVED}</Hidden> : null}
          {old ? <Text line={old} side="old" /> : null}
        </td>
        <td class="no">{now?.no}</td>
        <td class={now ? 'text ins' : 'text none'}>
          {now ? <Hidden>{ADDED}</Hidden> : null}
          {now ? <Text line={now} side="new" /> : null}
        </td>
      </tr>
    );
  });
}

function unifiedRows(block: Block) {
  if (block.kind === 'fold') return <Fold count={block.count} span={3} />;
  if (block.kind === 'same')
    return block.lines.map(({ old, new: now }) => (
      <tr>
        <td class="no">{old.no}</td>
        <td class="no">{now.no}</td>
        <td class="text">
          <Text line={now} side="new" />
        </td>
      </tr>
    ));
  return [
    ...block.old.map((line) => (
      <tr>
        <td class="no">{line.no}</td>
        <td class="no"></td>
        <td class="text del">
          <Hidden>{REMOVED}</Hidden>
          <Text line={line} side="old" />
        </td>
      </tr>
    )),
    ...block.new.map((line) => (
      <tr>
        <td class="no"></td>
        <td class="no">{line.no}</td>
        <td class="text ins">
          <Hidden>{ADDED}</Hidden>
          <Text line={line} side="new" />
        </td>
      </tr>
    )),
  ];
}

const FieldTable: FC<{ field: FieldDiff; index: number; layout: DiffLayout; sides: DiffSides }> = ({
  field,
  index,
  layout,
  sides,
}) => {
  const id = `field-${index}`;
  return (
    <section class="field-diff" aria-labelledby={id}>
      <h3 id={id}>
        <code>{field.field}</code>
      </h3>
      {field.whole ? (
        <p class="note">Too different to compare line by line: every line is shown replaced.</p>
      ) : null}
      <div class="scroll" tabindex={0} role="region" aria-labelledby={id}>
        <table class={`diff ${layout}`}>
          <thead>
            {layout === 'split' ? (
              <tr>
                <th scope="col" colspan={2}>
                  {sides.old}
                </th>
                <th scope="col" colspan={2}>
                  {sides.new}
                </th>
              </tr>
            ) : (
              <tr>
                <th scope="col">{sides.old}</th>
                <th scope="col">{sides.new}</th>
                <th scope="col">Text</th>
              </tr>
            )}
          </thead>
          <tbody>{field.blocks.map(layout === 'split' ? splitRows : unifiedRows)}</tbody>
        </table>
      </div>
    </section>
  );
};

/** The whole diff: each changed field's table, then the fields that did not change. */
export const DiffView: FC<{ diff: RecordDiff; layout: DiffLayout; sides: DiffSides }> = ({
  diff,
  layout,
  sides,
}) => (
  <div id="diff" class={`diff-${layout}`}>
    {diff.changed.length === 0 ? <p>The two versions are the same.</p> : null}
    {diff.changed.map((field, index) => (
      <FieldTable field={field} index={index} layout={layout} sides={sides} />
    ))}
    {diff.same.length > 0 ? (
      <p class="note" id="unchanged">
        Unchanged: {diff.same.join(', ')}.
      </p>
    ) : null}
  </div>
);
